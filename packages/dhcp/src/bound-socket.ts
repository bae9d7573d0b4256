// Thin typed face over the native BoundUdpSocket (native/bound_udp_socket.cc): a UDP socket bound to one device
// with SO_BINDTODEVICE, delivering datagrams on the JS thread.
import { createRequire } from 'node:module';
import { DhcpSocketError } from './errors.js';

export interface Peer {
  address: string;
  port: number;
  /** IPv6 scope (ingress ifindex for link-local peers); 0 for IPv4. */
  scopeId: number;
}

export interface BoundSocket {
  send(data: Buffer, to: Peer): void;
  close(): void;
  readonly ifindex: number;
}

interface NativeSocket {
  send(data: Buffer, address: string, port: number, scopeId?: number): number;
  close(): void;
  ifindex(): number;
}

type NativeCtor = new (
  family: 4 | 6,
  ifname: string,
  port: number,
  onMessage: (data: Buffer, address: string, port: number, scopeId: number) => void,
  joinGroup?: string,
) => NativeSocket;

let ctor: NativeCtor | undefined;

function nativeCtor(): NativeCtor {
  // src/ and dist/ are both one level below the package root, where node-gyp puts build/.
  ctor ??= (createRequire(import.meta.url)('../build/Release/virt_dhcp_socket.node') as { BoundUdpSocket: NativeCtor })
    .BoundUdpSocket;
  return ctor;
}

function asSocketError(e: unknown, ifname: string): DhcpSocketError {
  const err = e as Error & { syscall?: string; errno?: number };
  return new DhcpSocketError(`${ifname}: ${err.message}`, ifname, err.syscall ?? 'unknown', err.errno ?? 0);
}

export function openBoundSocket(
  family: 4 | 6,
  ifname: string,
  port: number,
  onMessage: (data: Buffer, from: Peer) => void,
  joinGroup?: string,
): BoundSocket {
  let sock: NativeSocket;
  try {
    sock = new (nativeCtor())(
      family,
      ifname,
      port,
      (data, address, p, scopeId) => onMessage(data, { address, port: p, scopeId }),
      joinGroup,
    );
  } catch (e) {
    throw asSocketError(e, ifname);
  }
  let open = true;
  return {
    ifindex: sock.ifindex(),
    send(data, to) {
      try {
        sock.send(data, to.address, to.port, to.scopeId);
      } catch (e) {
        throw asSocketError(e, ifname);
      }
    },
    close() {
      if (open) sock.close();
      open = false;
    },
  };
}

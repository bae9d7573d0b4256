// Typed face over the native Icmp6Socket (native/icmp6_socket.cc): a raw ICMPv6 socket bound to one device that
// passes only the ICMPv6 types asked for and reports each arrival's hop limit.
import { createRequire } from 'node:module';
import { DhcpSocketError } from '../errors.js';

export interface Icmp6Arrival {
  address: string;
  scopeId: number;
  /** IPv6 hop limit of the arrival; -1 when the kernel did not say. */
  hopLimit: number;
}

export interface Icmp6Socket {
  send(data: Buffer, to: string): void;
  close(): void;
  readonly ifindex: number;
}

interface NativeIcmp6 {
  send(data: Buffer, address: string): number;
  close(): void;
  ifindex(): number;
}

type NativeCtor = new (
  ifname: string,
  types: number[],
  joinGroups: string[],
  onMessage: (data: Buffer, address: string, scopeId: number, hopLimit: number) => void,
) => NativeIcmp6;

let ctor: NativeCtor | undefined;

function nativeCtor(): NativeCtor {
  // src/ra/ and dist/ra/ are both two levels below the package root, where node-gyp puts build/.
  ctor ??= (createRequire(import.meta.url)('../../build/Release/virt_dhcp_icmp6.node') as { Icmp6Socket: NativeCtor })
    .Icmp6Socket;
  return ctor;
}

function asSocketError(e: unknown, ifname: string): DhcpSocketError {
  const err = e as Error & { syscall?: string; errno?: number };
  return new DhcpSocketError(`${ifname}: ${err.message}`, ifname, err.syscall ?? 'unknown', err.errno ?? 0);
}

export function openIcmp6Socket(
  ifname: string,
  types: number[],
  joinGroups: string[],
  onMessage: (data: Buffer, from: Icmp6Arrival) => void,
): Icmp6Socket {
  let sock: NativeIcmp6;
  try {
    sock = new (nativeCtor())(ifname, types, joinGroups, (data, address, scopeId, hopLimit) =>
      onMessage(data, { address, scopeId, hopLimit }),
    );
  } catch (e) {
    throw asSocketError(e, ifname);
  }
  let open = true;
  return {
    ifindex: sock.ifindex(),
    send(data, to) {
      try {
        sock.send(data, to);
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

// Streams the guest's serial console (QEMU binds a unix socket once the domain starts) and watches for the
// demo guest's markers ("VLT-GUEST: lease ip=…", "VLT-GUEST: ipv6 ip=…").
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export interface ConsoleWatch {
  /** Resolves with the marker's line when the guest reports its DHCP lease. */
  lease: Promise<string>;
  /** Resolves with the marker's line when the guest reports its DHCPv6 address (or that it has none). */
  lease6: Promise<string>;
  /** Resolves with the line when the guest reports its probe of the node. */
  probe: Promise<string>;
  close(): void;
}

/** sun_path holds 108 bytes with its terminating NUL: a longer socket path cannot be dialled as it is. */
const SUN_PATH_MAX = 107;

/**
 * A path that dials `socketPath`: itself when it fits, else a symlink to it in a fresh short directory (connect()
 * follows links; only the string it is given must fit). `remove` deletes what was made.
 */
function dialablePath(socketPath: string): { path: string; remove: () => void } {
  if (Buffer.byteLength(socketPath) <= SUN_PATH_MAX) return { path: socketPath, remove: () => undefined };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vlt-con-'));
  const link = path.join(dir, 's');
  fs.symlinkSync(socketPath, link);
  return { path: link, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

export function watchSerialConsole(
  socketPath: string,
  onLine: (line: string) => void,
  signal: AbortSignal,
): ConsoleWatch {
  let resolveLease!: (l: string) => void;
  let resolveProbe!: (l: string) => void;
  let resolveLease6!: (l: string) => void;
  const lease = new Promise<string>((r) => (resolveLease = r));
  const lease6 = new Promise<string>((r) => (resolveLease6 = r));
  const probe = new Promise<string>((r) => (resolveProbe = r));
  let socket: net.Socket | undefined;
  const dial = dialablePath(socketPath);
  signal.addEventListener('abort', dial.remove, { once: true });

  const connectOnce = () =>
    new Promise<net.Socket>((resolve, reject) => {
      const s = net.createConnection(dial.path);
      s.once('connect', () => resolve(s));
      s.once('error', reject);
    });

  void (async () => {
    // QEMU creates the socket only when the domain starts: retry until it is there.
    while (!signal.aborted) {
      try {
        socket = await connectOnce();
        break;
      } catch {
        await sleep(200);
      }
    }
    if (!socket) return;
    let buf = '';
    socket.on('data', (d: Buffer) => {
      buf += d.toString('utf8').replace(/\r/g, '');
      let i: number;
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        onLine(line);
        if (line.includes('VLT-GUEST: lease')) resolveLease(line);
        if (line.includes('VLT-GUEST: ipv6 ')) resolveLease6(line);
        if (line.includes('VLT-GUEST: probe')) resolveProbe(line);
      }
    });
    socket.on('error', () => undefined);
  })();

  return {
    lease,
    lease6,
    probe,
    close: () => {
      socket?.destroy();
      dial.remove();
    },
  };
}

// The launcher's first libvirt connection, opened by the first file (dist/cli.js) while the main sequence is still
// loading: the daemon's handshake then runs beside the load instead of after it, and LibvirtSession adopts the
// connection (main/libvirt-session.ts). Any failure here yields undefined, never an error: the session then
// connects with its own retries and reports why it cannot, as it did before this head start existed.
import type { Connection } from '../adapters/libvirt.js';
import { connectLibvirt } from '../adapters/libvirt.js';
import { untilSocketExists } from './socket-wait.js';

export interface FirstConnectionOptions {
  /** The daemon's socket, polled every 10 ms until it exists (a spawned daemon binds it ~0.1–0.3 s later). */
  socketPath?: string;
  /** How long to wait for the socket before leaving the connection to the session. */
  waitMs: number;
}

export async function firstConnection(uri: string, options: FirstConnectionOptions): Promise<Connection | undefined> {
  const socket = options.socketPath;
  if (socket && !(await untilSocketExists(socket, { timeoutMs: options.waitMs }))) return undefined;
  return connectLibvirt(uri).catch(() => undefined);
}

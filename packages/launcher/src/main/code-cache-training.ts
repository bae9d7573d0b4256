// What write-code-cache.ts runs before it saves the main bundle's code cache: the start-up's own path through the
// cmd server (bind, the self-ping's Info and Ping, stop), so gRPC's server, HTTP/2 and the protos' codecs are in
// the cache as bytecode and the launcher does not compile them again before it is ready.
import { join } from 'node:path';
import { CmdServer } from '../cmd-server/server.js';
import { selfPing } from '../cmd-server/self-ping.js';
import { ok } from '../cmd-server/rpc-table.js';

/** Binds a cmd server on a socket in `dir` (which must exist), pings it as the start-up does, stops it. */
export async function exerciseStartUpPaths(dir: string): Promise<void> {
  const server = new CmdServer({ ping: async () => ok() });
  const socket = join(dir, 'code-cache-training.sock');
  await server.listen(socket);
  try {
    await selfPing(socket, 100, 5_000);
  } finally {
    await server.stop();
  }
}

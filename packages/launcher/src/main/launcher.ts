// The main sequence (launcher.md §3) as named steps: directories, cmd server, self-ping, ready, then wait
// until a signal or the domain's end stops the launcher.
import type { LauncherFlags } from '../flags.js';
import { resolvePaths } from '../paths.js';
import { CmdServer } from '../cmd-server/server.js';
import { selfPing } from '../cmd-server/self-ping.js';
import { ok } from '../cmd-server/rpc-table.js';
import { initializeDirs } from './dirs.js';
import { trapSignals } from './signals.js';

export async function runLauncher(flags: LauncherFlags): Promise<void> {
  const paths = resolvePaths(flags);
  const stop = trapSignals();
  await initializeDirs(paths, flags.uid);

  const server = new CmdServer({ ping: async () => ok() });
  await server.listen(paths.initSocket);
  await selfPing(paths.initSocket);
  await server.markReady(paths.readySocket);

  await stop.received;
  await server.stop();
}

// Test support: the teardown every real-stack test of a launcher with a guest ends with, in the order that leaves
// nothing behind (console and client first, then the launcher's process tree, any QEMU left in the root, the
// notify stand-in, the root itself).
import { rm } from 'node:fs/promises';
import type { LauncherClient } from '../cmd-client.js';
import type { NotifyStandIn } from './handler-standin.js';
import { killGuests, killTree } from './launcher-process.js';
import type { LauncherProcess } from './launcher-process.js';

export async function stopLauncherRun(run: {
  console?: { close(): void };
  client?: LauncherClient;
  launcher?: LauncherProcess;
  notify: NotifyStandIn;
  root: string;
}): Promise<void> {
  run.console?.close();
  run.client?.close();
  if (run.launcher) await killTree(run.launcher);
  if (run.root) await killGuests(run.root);
  run.notify.close();
  if (run.root) await rm(run.root, { recursive: true, force: true });
}

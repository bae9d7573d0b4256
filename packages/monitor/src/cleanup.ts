// End-of-life chores: dumping log files QEMU/passt wrote inside the container into the monitor's
// own stdout (the only log kubectl shows after the pod ends), and removing container-disk sockets
// so the container-disk sidecars (which stat them once a second) exit too.
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

export const PASST_LOG = '/var/run/kubevirt/passt.log';
export const QEMU_LOG_DIR = '/run/kubevirt-private/libvirt/qemu/log';

/** KubeVirt's scanner gives up on a line beyond 512 KiB; longer lines are cut to that size. */
const MAX_LINE = 512 * 1024;

export interface DumpLogsOptions {
  passtLog?: string;
  qemuLogDir?: string;
  /** One call per line of each file, and one announcement per file. */
  line: (file: string, text: string) => void;
  announce: (file: string) => void;
  onDirError: (dir: string, error: Error) => void;
}

function dumpFile(file: string, options: DumpLogsOptions): void {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return; // a missing file is the normal case (no passt binding, root QEMU)
  }
  options.announce(file);
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  for (const line of lines) options.line(file, line.length > MAX_LINE ? line.slice(0, MAX_LINE) : line);
}

export function dumpLogs(options: DumpLogsOptions): void {
  dumpFile(options.passtLog ?? PASST_LOG, options);
  const dir = options.qemuLogDir ?? QEMU_LOG_DIR;
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') options.onDirError(dir, error as Error);
    return;
  }
  for (const name of names) dumpFile(join(dir, name), options);
}

/** Removes `<dir>/*.sock` (only directly inside dir). Returns the removed paths. */
export function removeContainerDiskSockets(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const removed: string[] = [];
  for (const name of names) {
    if (!name.endsWith('.sock')) continue;
    const path = join(dir, name);
    rmSync(path, { force: true, recursive: true });
    removed.push(path);
  }
  return removed;
}

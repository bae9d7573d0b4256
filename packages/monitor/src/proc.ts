// Small readers of /proc used at shutdown (not on the hot path: the periodic zombie scan is
// native). Every reader tolerates a process vanishing between readdir and read.
import { readdirSync, readFileSync } from 'node:fs';

export interface ProcStat {
  pid: number;
  comm: string;
  state: string;
  ppid: number;
}

export function listPids(procRoot = '/proc'): number[] {
  const pids: number[] = [];
  for (const name of readdirSync(procRoot)) {
    if (/^[1-9]\d*$/.test(name)) pids.push(Number(name));
  }
  return pids.sort((a, b) => a - b);
}

/** Parses /proc/PID/stat; comm may hold spaces and parentheses, so split at the last ')'. */
export function parseStat(text: string): ProcStat | undefined {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) return undefined;
  const fields = text.slice(close + 2).split(' ');
  const pid = Number(text.slice(0, open).trim());
  const ppid = Number(fields[1]);
  if (!Number.isInteger(pid) || !Number.isInteger(ppid) || !fields[0]) return undefined;
  return { pid, comm: text.slice(open + 1, close), state: fields[0], ppid };
}

export function readStat(pid: number, procRoot = '/proc'): ProcStat | undefined {
  try {
    return parseStat(readFileSync(`${procRoot}/${pid}/stat`, 'utf8'));
  } catch {
    return undefined;
  }
}

/** argv of a process (empty for kernel threads and zombies). */
export function readCmdline(pid: number, procRoot = '/proc'): string[] {
  try {
    const raw = readFileSync(`${procRoot}/${pid}/cmdline`, 'utf8');
    return raw.split('\0').filter((part, i, all) => part !== '' || i < all.length - 1);
  } catch {
    return [];
  }
}

/** True when `pid` has `ancestor` somewhere up its parent chain. */
export function isDescendant(pid: number, ancestor: number, parents: ReadonlyMap<number, number>): boolean {
  let current = parents.get(pid);
  for (let hops = 0; current !== undefined && current > 0 && hops < 4096; hops++) {
    if (current === ancestor) return true;
    current = parents.get(current);
  }
  return false;
}

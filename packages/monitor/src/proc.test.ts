import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { isDescendant, parseStat, readCmdline, readStat } from './proc.js';

describe('/proc readers', () => {
  it('parses a stat line whose comm holds spaces and parentheses', () => {
    expect(parseStat('42 (we (ir) d) S 7 42 42 0 -1')).toEqual({ pid: 42, comm: 'we (ir) d', state: 'S', ppid: 7 });
    expect(parseStat('garbage')).toBeUndefined();
  });

  it('reads a live child: its parent is us, its argv is what we passed', async () => {
    const child = spawn('sleep', ['30']);
    try {
      const pid = child.pid as number;
      expect(readStat(pid)?.ppid).toBe(process.pid);
      expect(readCmdline(pid)).toEqual(['sleep', '30']);
      const parents = new Map([[pid, process.pid]]);
      expect(isDescendant(pid, process.pid, parents)).toBe(true);
      expect(isDescendant(pid, pid + 100000, parents)).toBe(false);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('tolerates a process that is gone', () => {
    expect(readStat(2 ** 22 + 1)).toBeUndefined();
    expect(readCmdline(2 ** 22 + 1)).toEqual([]);
  });
});

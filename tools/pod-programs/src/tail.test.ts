// virt-tail as a real process on real files: start before the file exists, append, partial lines,
// truncation, rename-and-recreate rotation, and the exit codes.
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, renameSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { start, waitFor } from './testing/process.js';
import type { Running } from './testing/process.js';

const bin = join(import.meta.dirname, '../bin/virt-tail.js');
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'vlt-pod-programs-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const lines = (p: Running) => p.stdout().split('\n').slice(0, -1);
const seen = (p: Running, n: number) => waitFor(() => lines(p).length >= n, `${n} lines (have ${lines(p).length})`);

describe('virt-tail', () => {
  it('exits 1 without --logfile and 0 for --help', () => {
    const none = spawnSync('node', [bin], { encoding: 'utf8' });
    expect(none.status).toBe(1);
    expect(none.stderr).toMatch(/--logfile/);
    const help = spawnSync('node', [bin, '--help'], { encoding: 'utf8' });
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/--logfile/);
  });

  it('waits for the file, then streams appended whole lines; a partial line waits for its newline', async () => {
    const log = join(dir, 'append-log');
    // An unknown flag is ignored, as KubeVirt's virt-tail does.
    const p = start('node', [bin, '--logfile', log, '--some-future-flag=1']);
    writeFileSync(log, 'boot 1\nboot 2\n');
    await seen(p, 2);
    appendFileSync(log, 'login: ');
    appendFileSync(log, 'root\nafter\n');
    await seen(p, 4);
    expect(lines(p)).toEqual(['boot 1', 'boot 2', 'login: root', 'after']);
    p.child.kill('SIGTERM');
    expect((await p.exited).code).toBe(0);
  });

  it('starts again from the top when the file is truncated', async () => {
    const log = join(dir, 'truncate-log');
    writeFileSync(log, 'old line one\nold line two\n');
    const p = start('node', [bin, '--logfile', log]);
    await seen(p, 2);
    // Shorter than what was read: the shrink is visible whenever the follower looks next.
    truncateSync(log, 0);
    appendFileSync(log, 'new\n');
    await seen(p, 3);
    expect(lines(p)).toEqual(['old line one', 'old line two', 'new']);
    p.child.kill('SIGTERM');
    expect((await p.exited).code).toBe(0);
  });

  it('follows a rename-and-recreate rotation, finishing the old file first', async () => {
    const log = join(dir, 'rotate-log');
    writeFileSync(log, 'a1\n');
    const p = start('node', [bin, '--logfile', log]);
    await seen(p, 1);
    renameSync(log, `${log}.1`);
    // The writer still holds the old file: its last line lands there, after the rename.
    appendFileSync(`${log}.1`, 'a2\n');
    await seen(p, 2);
    writeFileSync(log, 'b1\nb2\n');
    await seen(p, 4);
    expect(lines(p)).toEqual(['a1', 'a2', 'b1', 'b2']);
    p.child.kill('SIGTERM');
    expect((await p.exited).code).toBe(0);
  });

  it('exits 0 on SIGTERM (the pod ending) after passing on what was written before it', async () => {
    const log = join(dir, 'term-log');
    writeFileSync(log, 'x\n');
    const p = start('node', [bin, '--logfile', log]);
    await seen(p, 1);
    appendFileSync(log, 'last words\n');
    p.child.kill('SIGTERM');
    const { code, signal } = await p.exited;
    expect(signal).toBeNull();
    expect(code).toBe(0);
    expect(lines(p)).toEqual(['x', 'last words']);
  });
});

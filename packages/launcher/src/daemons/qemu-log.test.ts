import { afterEach, describe, expect, it } from 'vitest';
import { appendFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { QemuLogFollower, QemuLogLines } from './qemu-log.js';

describe('QemuLogLines', () => {
  it('joins a command line broken with trailing backslashes and drops blank lines', () => {
    const out: string[] = [];
    const lines = new QemuLogLines((l) => out.push(l));
    lines.push('2026-12-01 starting up libvirt version: 9.0.0\nLC_ALL=C \\\n/usr/bin/qemu-system-x86_64 \\\n-name gu');
    lines.push('est\n\n   \nqemu-system-x86_64: -cpu Nope: unable to find CPU model\n');
    expect(out).toEqual([
      '2026-12-01 starting up libvirt version: 9.0.0',
      'LC_ALL=C \\/usr/bin/qemu-system-x86_64 \\-name guest',
      'qemu-system-x86_64: -cpu Nope: unable to find CPU model',
    ]);
  });

  it('flush emits a last line without its newline', () => {
    const out: string[] = [];
    const lines = new QemuLogLines((l) => out.push(l));
    lines.push('2026-12-01T04:00:00 shutting down, reason=crashed');
    expect(out).toEqual([]);
    lines.flush();
    expect(out).toEqual(['2026-12-01T04:00:00 shutting down, reason=crashed']);
  });
});

describe('QemuLogFollower', () => {
  let dir = '';
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('waits for the file, reads appended lines once, and starts over after a truncation', async () => {
    dir = await mkdtemp(join(tmpdir(), 'vlt-qemu-log-'));
    const file = join(dir, 'default_guest.log');
    const out: string[] = [];
    const follower = new QemuLogFollower(file, (l) => out.push(l));
    await follower.poll(); // no file yet: nothing, no error
    await writeFile(file, 'first\nsec');
    await follower.poll();
    expect(out).toEqual(['first']);
    await appendFile(file, 'ond \u00e9\n');
    await follower.poll();
    await follower.poll();
    expect(out).toEqual(['first', 'second \u00e9']);
    await writeFile(file, 'new\n');
    await follower.poll();
    expect(out).toEqual(['first', 'second \u00e9', 'new']);
    await appendFile(file, 'tail without newline');
    await follower.stop();
    expect(out.at(-1)).toBe('tail without newline');
  });
});

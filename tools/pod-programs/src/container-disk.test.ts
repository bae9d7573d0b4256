// container-disk is C; these tests run the built static executable as a real process.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, unlinkSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { programFiles } from './index.js';
import { isSocket, start, waitFor } from './testing/process.js';

const bin = programFiles['container-disk'];
let dir: string;

beforeAll(() => {
  execFileSync('bash', [join(import.meta.dirname, '../native/build.sh')]);
  dir = mkdtempSync(join(tmpdir(), 'vlt-pod-programs-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Connects and resolves when the server side closes the connection it accepted. */
function connectAndSeeClose(sock: string): Promise<'closed'> {
  return new Promise((resolve, reject) => {
    const c = createConnection(sock);
    c.on('error', reject);
    c.on('close', () => resolve('closed'));
    c.resume();
  });
}

describe('container-disk', () => {
  it('is a static executable (no interpreter, no shared libraries)', () => {
    expect(execFileSync('file', ['-L', bin], { encoding: 'utf8' })).toMatch(/statically linked/);
    const ldd = spawnSync('ldd', [bin], { encoding: 'utf8' });
    expect(ldd.stdout + ldd.stderr).toMatch(/not a dynamic executable/);
  });

  it('--no-op exits 0 at once and --help prints the usage', () => {
    expect(spawnSync(bin, ['--no-op']).status).toBe(0);
    const help = spawnSync(bin, ['-h'], { encoding: 'utf8' });
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/--copy-path/);
  });

  it('exits 1 naming the problem without --copy-path, with a bad flag, or with a too long path', () => {
    const none = spawnSync(bin, [], { encoding: 'utf8' });
    expect(none.status).toBe(1);
    expect(none.stderr).toMatch(/--copy-path is required/);
    expect(spawnSync(bin, ['--bogus']).status).toBe(1);
    const long = spawnSync(bin, ['-c', '/' + 'x'.repeat(102)], { encoding: 'utf8' });
    expect(long.status).toBe(1);
    expect(long.stderr).toMatch(/longer than 102/);
    expect(existsSync('/' + 'x'.repeat(102) + '.sock')).toBe(false);
  });

  it('creates the missing directory, listens on <copy-path>.sock, accepts, and exits 0 when that file is removed', async () => {
    const copyPath = join(dir, 'removed', 'disk_0');
    const p = start(bin, ['--copy-path', copyPath]);
    const sock = `${copyPath}.sock`;
    await waitFor(() => isSocket(sock), 'the socket');
    await expect(connectAndSeeClose(sock)).resolves.toBe('closed');
    await expect(connectAndSeeClose(sock)).resolves.toBe('closed');
    unlinkSync(sock);
    const { code, signal } = await p.exited;
    expect(signal).toBeNull();
    expect(code).toBe(0);
    expect(p.stderr()).toMatch(/does not exist anymore/);
  });

  it('exits 0 on SIGTERM and removes its socket', async () => {
    const copyPath = join(dir, 'disk_1');
    const p = start(bin, ['-c', copyPath]);
    const sock = `${copyPath}.sock`;
    await waitFor(() => isSocket(sock), 'the socket');
    p.child.kill('SIGTERM');
    const { code, signal } = await p.exited;
    expect(signal).toBeNull();
    expect(code).toBe(0);
    expect(existsSync(sock)).toBe(false);
  });

  it('exits 1 when the socket cannot be made (the path already exists)', async () => {
    const copyPath = join(dir, 'disk_2');
    const first = start(bin, ['-c', copyPath]);
    await waitFor(() => isSocket(`${copyPath}.sock`), 'the socket');
    const second = spawnSync(bin, ['-c', copyPath], { encoding: 'utf8' });
    expect(second.status).toBe(1);
    expect(second.stderr).toMatch(/failed to bind/);
    first.child.kill('SIGTERM');
    expect((await first.exited).code).toBe(0);
  });
});

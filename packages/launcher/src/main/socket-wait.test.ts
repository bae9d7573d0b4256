import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { untilSocketExists } from './socket-wait.js';

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vlt-socket-wait-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('untilSocketExists', () => {
  it('resolves true once the path appears', async () => {
    const path = join(dir, 'sock');
    setTimeout(() => void writeFile(path, ''), 30);
    expect(await untilSocketExists(path, { timeoutMs: 5000 })).toBe(true);
  });

  it('resolves false when the time is up', async () => {
    const started = Date.now();
    expect(await untilSocketExists(join(dir, 'never'), { timeoutMs: 50 })).toBe(false);
    expect(Date.now() - started).toBeGreaterThanOrEqual(50);
  });

  it('resolves false at once when told to stop', async () => {
    const started = Date.now();
    expect(await untilSocketExists(join(dir, 'never'), { timeoutMs: 60_000, shouldStop: () => true })).toBe(false);
    expect(Date.now() - started).toBeLessThan(1000);
  });
});

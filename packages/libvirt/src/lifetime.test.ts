// The event loop thread and open connections must not keep Node alive once closed (or unref'd).
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { execa } from 'execa';
import { describe, expect, it } from 'vitest';

const child = join(dirname(fileURLToPath(import.meta.url)), 'exit-child.ts');

describe('process lifetime', () => {
  for (const mode of ['close', 'unref']) {
    it(`lets the process exit after ${mode}()`, async () => {
      // The timeout only turns a hang into a failure; it measures nothing.
      const r = await execa('node', ['--import', 'tsx', child, mode], { timeout: 60_000, reject: false });
      expect(r.timedOut).toBe(false);
      expect(r.exitCode).toBe(0);
      expect(r.stdout.trim()).toBe(`exit ${mode} 0`);
    });
  }

  it('surfaces an exception thrown by an event listener as an uncaught exception', async () => {
    const r = await execa('node', ['--import', 'tsx', child, 'throw'], { timeout: 60_000, reject: false });
    expect(r.timedOut).toBe(false);
    expect(r.exitCode).not.toBe(0);
    expect(r.stderr).toContain('listener boom');
  });
});

import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

/** Runs a Node process that signals itself with SIGUSR1 and prints whether its inspector opened (on a free port). */
function inspectorAfterSigusr1(preload: boolean): string {
  // The package's own name resolves through its `exports`, exactly as a CLI that imports it does (built dist/).
  const script = `
    ${preload ? "await import('@virt-launcher/shared/no-inspector');" : ''}
    const inspector = await import('node:inspector');
    process.kill(process.pid, 'SIGUSR1');
    setTimeout(() => { console.log(inspector.url() ?? 'closed'); inspector.close(); }, 300);`;
  const r = spawnSync(process.execPath, ['--inspect-port=0', '--input-type=module', '-e', script], {
    cwd: import.meta.dirname,
    encoding: 'utf8',
    timeout: 10_000,
  });
  if (r.status !== 0) throw new Error(`node exited ${r.status}: ${r.stderr}`);
  return r.stdout.trim();
}

describe('@virt-launcher/shared/no-inspector: SIGUSR1 opens no inspector', () => {
  it('control: a plain Node process opens its inspector on SIGUSR1', () => {
    expect(inspectorAfterSigusr1(false)).toMatch(/^ws:\/\/127\.0\.0\.1:/);
  });

  it('with the entry imported the inspector stays closed', () => {
    expect(inspectorAfterSigusr1(true)).toBe('closed');
  });
});

// A crash of the launcher's code (an uncaught exception in Node, or a native fault in an addon) while a QEMU it
// daemonized runs: PID 1 must still stop that QEMU gracefully (SIGTERM, QEMU's clean shutdown removes its pid
// file) and end the pod with KubeVirt's exit codes (the launcher's own code, 255 when a signal killed it).
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { canUnsharePid, killRunning, makeSandbox, runCli, startNoIstio, type Sandbox } from './cli.testkit.js';

const unshareWorks = canUnsharePid();
const hasRealQemu = spawnSync('qemu-system-x86_64', ['--version']).status === 0;
const GUARD_MS = 20_000;
let istio: Awaited<ReturnType<typeof startNoIstio>>;
let box: Sandbox;

beforeAll(async () => {
  istio = await startNoIstio();
});
afterAll(async () => {
  await istio.close();
});
beforeEach(() => {
  box = makeSandbox();
});
afterEach(() => {
  killRunning();
  box.remove();
});

/** A stand-in launcher: daemonizes a real QEMU (as libvirt does), then crashes in the way `how` names. */
function crashingLauncher(b: Sandbox, how: 'throw' | 'segv'): string[] {
  const script = b.path('launcher.mjs');
  writeFileSync(
    script,
    `import { execFileSync } from 'node:child_process';
import { copyFileSync } from 'node:fs';
execFileSync('qemu-system-x86_64', ['-machine', 'none', '-display', 'none', '-nodefaults', '-daemonize',
  '-pidfile', ${JSON.stringify(b.path('pidfile'))}]);
copyFileSync(${JSON.stringify(b.path('pidfile'))}, ${JSON.stringify(b.path('qemu.pid'))});
${how === 'throw' ? "throw new Error('launcher bug');" : "process.kill(process.pid, 'SIGSEGV');"}
`,
  );
  return [process.execPath, script];
}

describe.skipIf(!unshareWorks || !hasRealQemu)('the launcher crashes while QEMU runs', () => {
  it('an uncaught exception: QEMU is stopped gracefully and the pod exits with the launcher code 1', async () => {
    const result = await runCli({
      pid1: true,
      command: crashingLauncher(box, 'throw'),
      env: istio.env,
      guardMs: GUARD_MS,
    }).done;
    expect(result.timedOut).toBe(false);
    expect(result.stderr).toContain('launcher bug');
    expect(result.code).toBe(1);
    const qemuPid = Number(box.read('qemu.pid'));
    const msgs = result.logs.map((l) => l.msg);
    expect(msgs).toContain('dirty virt-launcher shutdown: exit-code 1');
    expect(msgs).toContain(`Killing QEMU gracefully. pids ${qemuPid}`);
    expect(msgs).toContain(`Reaped pid ${qemuPid} with status 0 (exit code 0)`);
    expect(box.exists('pidfile')).toBe(false);
    expect(msgs.at(-1)).toBe('virt-launcher-monitor: Exiting...');
  });

  it('a native fault (SIGSEGV): QEMU is stopped gracefully and the pod exits 255', async () => {
    const result = await runCli({
      pid1: true,
      command: crashingLauncher(box, 'segv'),
      env: istio.env,
      guardMs: GUARD_MS,
    }).done;
    expect(result.timedOut).toBe(false);
    expect(result.code).toBe(255);
    const qemuPid = Number(box.read('qemu.pid'));
    const msgs = result.logs.map((l) => l.msg);
    expect(msgs).toContain('dirty virt-launcher shutdown: exit-code -1 (killed by SIGSEGV)');
    expect(msgs).toContain(`Killing QEMU gracefully. pids ${qemuPid}`);
    expect(box.exists('pidfile')).toBe(false);
  });
});

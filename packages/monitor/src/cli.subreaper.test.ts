// The built CLI as an ordinary process (not PID 1): it must make itself a child subreaper so
// that orphans of its subtree land on it rather than on the host's init.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import {
  makeSandbox,
  parseOrphanReport,
  reapedCount,
  runCli,
  startNoIstio,
  waitFor,
  ORPHANS_SCRIPT,
  type Sandbox,
} from './cli.testkit.js';

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
  box.remove();
});

const trapScript = (b: Sandbox): string =>
  `trap 'echo TERM > ${b.path('marker')}; exit 0' TERM; touch ${b.path('ready')}; while :; do sleep 0.1; done`;

describe('virt-launcher-monitor as a child subreaper (not PID 1)', () => {
  it('adopts and reaps six orphaned grandchildren, leaving no zombie', async () => {
    writeFileSync(box.path('orphans.sh'), ORPHANS_SCRIPT);
    const run = runCli({ pid1: false, command: ['sh', box.path('orphans.sh'), box.path('report')], env: istio.env });
    const result = await run.done;
    expect(result.code).toBe(0);
    const report = parseOrphanReport(box.read('report'));
    expect(report.reaper).toBe(run.proc.pid);
    expect(report.parents.size).toBe(6);
    for (const parent of report.parents.values()) expect(parent).toBe(String(run.proc.pid));
    expect(report.left).toEqual([]);
    expect(report.zombies).toBe(0);
    const reaped = new Set(result.logs.map((l) => /^Reaped pid (\d+) /.exec(l.msg)?.[1]).filter(Boolean));
    for (const pid of report.parents.keys()) expect(reaped.has(String(pid))).toBe(true);
  });

  it('keeps the exit status of its own child while orphans die around it', async () => {
    // 40 orphans exit at about the moment the command does: a blanket waitpid(-1) would steal
    // the command's status and the monitor would never see its exit.
    const command = 'for i in $(seq 40); do ( sh -c "exit 3" & ); done; exit 9';
    const result = await runCli({ pid1: false, command: ['sh', '-c', command], env: istio.env }).done;
    expect(result.timedOut).toBe(false);
    expect(result.code).toBe(9);
    // Each one is accounted for, on its own line or in a summary line (the log is rate-limited).
    expect(reapedCount(result.logs).total).toBe(40);
  });

  for (const sig of ['SIGINT', 'SIGHUP', 'SIGQUIT', 'SIGTERM'] as const) {
    it(`forwards ${sig} to the command as SIGTERM`, async () => {
      const run = runCli({ pid1: false, command: ['sh', '-c', trapScript(box)], env: istio.env });
      await waitFor(() => (box.exists('ready') ? true : undefined), 'the command to be ready');
      run.proc.kill(sig);
      const result = await run.done;
      expect(result.timedOut).toBe(false);
      expect(box.read('marker').trim()).toBe('TERM');
      expect(result.code).toBe(0);
    });
  }

  it('with --keep-after-failure stays alive after a failed command, until killed', async () => {
    const run = runCli({
      pid1: false,
      monitorArgs: ['--keep-after-failure'],
      command: ['sh', '-c', 'exit 3'],
      env: istio.env,
    });
    let stdout = '';
    run.proc.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
    await waitFor(() => (stdout.includes('keeping virt-launcher container alive') ? true : undefined), 'the keep line');
    // A signal is logged but does not end it (KubeVirt keeps its handler installed).
    run.proc.kill('SIGTERM');
    await waitFor(() => (stdout.includes("can't signal virt-launcher") ? true : undefined), 'the late-signal line');
    expect(run.proc.exitCode).toBeNull();
    run.proc.kill('SIGKILL');
    const result = await run.done;
    expect(result.signal).toBe('SIGKILL');
    expect(result.logs.map((l) => l.msg)).not.toContain('virt-launcher-monitor: Exiting...');
  });

  it('with --keep-after-failure exits normally after a successful command', async () => {
    const result = await runCli({
      pid1: false,
      monitorArgs: ['--keep-after-failure'],
      command: ['true'],
      env: istio.env,
    }).done;
    expect(result.code).toBe(0);
  });

  it('exits 1 and logs when the command cannot be started', async () => {
    const result = await runCli({ pid1: false, command: [box.path('no-such-launcher')], env: istio.env }).done;
    expect(result.code).toBe(1);
    const failure = result.logs.find((l) => l.msg === 'failed to run virt-launcher');
    expect(failure?.level).toBe('error');
  });

  it('dumps the passt log and the QEMU log files into its own log', async () => {
    writeFileSync(box.path('passt.log'), 'passt line 1\npasst line 2\n');
    const qemuLogs = box.path('qemu-logs');
    await import('node:fs').then((fs) => fs.mkdirSync(qemuLogs));
    writeFileSync(`${qemuLogs}/default_vmi.log`, 'qemu says hello\n');
    const result = await runCli({
      pid1: false,
      command: ['true'],
      env: {
        ...istio.env,
        VIRT_LAUNCHER_MONITOR_PASST_LOG: box.path('passt.log'),
        VIRT_LAUNCHER_MONITOR_QEMU_LOG_DIR: qemuLogs,
      },
    }).done;
    const msgs = result.logs.map((l) => l.msg);
    expect(msgs).toEqual(
      expect.arrayContaining([
        `dump log file: ${box.path('passt.log')}`,
        'passt line 1',
        'passt line 2',
        `dump log file: ${qemuLogs}/default_vmi.log`,
        'qemu says hello',
      ]),
    );
  });
});

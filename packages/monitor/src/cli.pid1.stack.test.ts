// The built CLI as PID 1 of a fresh pid namespace (unshare --pid --fork --mount-proc), the way it
// runs in the compute container.
import { afterAll, beforeAll, beforeEach, afterEach, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { writeFileSync, mkdirSync, readdirSync } from 'node:fs';
import {
  canUnsharePid,
  childrenOf,
  makeSandbox,
  parseOrphanReport,
  runCli,
  startNoIstio,
  waitFor,
  ORPHANS_SCRIPT,
  type Sandbox,
} from './cli.testkit.js';

const unshareWorks = canUnsharePid();
// Every run must end on its own well within this (the QEMU grace period is 10 s).
const GUARD_MS = 12_000;
const hasRealQemu = spawnSync('qemu-system-x86_64', ['--version']).status === 0;
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

describe.skipIf(!unshareWorks)('virt-launcher-monitor as PID 1', () => {
  it('reaps six orphaned grandchildren: none is left a zombie, each exit status is logged', async () => {
    writeFileSync(box.path('orphans.sh'), ORPHANS_SCRIPT);
    const run = runCli({
      pid1: true,
      command: ['sh', box.path('orphans.sh'), box.path('report')],
      env: istio.env,
      guardMs: GUARD_MS,
    });
    const result = await run.done;
    expect(result.timedOut).toBe(false);
    expect(result.code).toBe(0);
    const report = parseOrphanReport(box.read('report'));
    expect(report.reaper).toBe(1);
    expect(report.parents.size).toBe(6);
    // Each grandchild was re-parented to the monitor (PID 1) while the command was still alive.
    for (const parent of report.parents.values()) expect(parent).toBe('1');
    expect(report.left).toEqual([]);
    expect(report.gone.sort()).toEqual([...report.parents.keys()].sort());
    expect(report.zombies).toBe(0);
    const reaped = result.logs.map((l) => /^Reaped pid (\d+) with status (\d+)/.exec(l.msg)).filter(Boolean);
    const byPid = new Map(reaped.map((m) => [Number(m?.[1]), Number(m?.[2])]));
    [...report.parents.keys()].forEach((pid, i) => expect(byPid.get(pid)).toBe((i + 1) * 256));
    for (const line of result.logs) {
      expect(line.component).toBe('virt-launcher-monitor');
      expect(Object.keys(line).sort()).toEqual(['component', 'level', 'msg', 'pos', 'timestamp']);
    }
  });

  it('passes exit code 7 of the command through', async () => {
    const result = await runCli({ pid1: true, command: ['sh', '-c', 'exit 7'], env: istio.env, guardMs: GUARD_MS })
      .done;
    expect(result.timedOut).toBe(false);
    expect(result.code).toBe(7);
    expect(result.logs.map((l) => l.msg)).toContain('dirty virt-launcher shutdown: exit-code 7');
  });

  it('exits 255 when the command is killed by SIGKILL from outside', async () => {
    const script = `touch ${box.path('ready')}; while :; do sleep 0.1; done`;
    const run = runCli({ pid1: true, command: ['sh', '-c', script], env: istio.env, guardMs: GUARD_MS });
    const monitor = await run.monitorPid();
    await waitFor(() => (box.exists('ready') ? true : undefined), 'the command to be ready');
    const command = childrenOf(monitor)[0];
    expect(command).toBeDefined();
    process.kill(command as number, 'SIGKILL');
    const result = await run.done;
    expect(result.timedOut).toBe(false);
    expect(result.code).toBe(255);
    expect(result.logs.map((l) => l.msg)).toContain('dirty virt-launcher shutdown: exit-code -1 (killed by SIGKILL)');
  });

  it('forwards SIGTERM sent to the monitor to the command, whose trap runs', async () => {
    const script = `trap 'echo TERM > ${box.path('marker')}; exit 0' TERM; touch ${box.path('ready')}; while :; do sleep 0.1; done`;
    const run = runCli({ pid1: true, command: ['sh', '-c', script], env: istio.env, guardMs: GUARD_MS });
    const monitor = await run.monitorPid();
    await waitFor(() => (box.exists('ready') ? true : undefined), 'the command to be ready');
    process.kill(monitor, 'SIGTERM');
    const result = await run.done;
    expect(result.timedOut).toBe(false);
    expect(box.read('marker').trim()).toBe('TERM');
    expect(result.code).toBe(0);
    expect(result.logs.map((l) => l.msg)).toContain('signalling virt-launcher to shut down');
  });

  it('SIGTERMs a leftover qemu-system-x86_64 and waits for it before exiting', async () => {
    const qemu = box.copyAs('/bin/dash', 'qemu-system-x86_64');
    const qemuScript = `trap 'echo TERM > ${box.path('qemu-marker')}; exit 0' TERM; echo \\$\\$ > ${box.path('qemu.pid')}; while :; do sleep 0.1; done`;
    // The command starts the fake QEMU in the background and exits once it is running, leaving it
    // to PID 1 exactly as a daemonized QEMU is left when virt-launcher exits.
    const command = `${qemu} -c "${qemuScript}" & while [ ! -s ${box.path('qemu.pid')} ]; do sleep 0.05; done; echo "$(cat /proc/$!/comm)" > ${box.path('comm')}`;
    const run = runCli({ pid1: true, command: ['sh', '-c', command], env: istio.env, guardMs: GUARD_MS });
    const result = await run.done;
    // "Ends within 12 s": the guard would have killed it otherwise.
    expect(result.timedOut).toBe(false);
    expect(box.read('comm').trim()).toBe('qemu-system-x86');
    expect(box.read('qemu-marker').trim()).toBe('TERM');
    expect(result.code).toBe(0);
    const msgs = result.logs.map((l) => l.msg);
    expect(msgs.some((m) => m.startsWith('Killing QEMU gracefully.'))).toBe(true);
    const qemuPid = Number(box.read('qemu.pid'));
    expect(msgs.filter((m) => m.startsWith(`Reaped pid ${qemuPid} `))).toEqual([
      `Reaped pid ${qemuPid} with status 0 (exit code 0)`,
    ]);
    expect(msgs.at(-1)).toBe('virt-launcher-monitor: Exiting...');
  });

  it.skipIf(!hasRealQemu)('stops a real daemonized QEMU (re-parented to PID 1) with SIGTERM', async () => {
    // -daemonize double-forks exactly like libvirt's QEMU: the guest process ends up on PID 1.
    const command = `qemu-system-x86_64 -machine none -display none -nodefaults -daemonize -pidfile ${box.path('pidfile')} && cp ${box.path('pidfile')} ${box.path('qemu.pid')}`;
    const result = await runCli({ pid1: true, command: ['sh', '-c', command], env: istio.env, guardMs: GUARD_MS }).done;
    expect(result.timedOut).toBe(false);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const qemuPid = Number(box.read('qemu.pid'));
    const msgs = result.logs.map((l) => l.msg);
    expect(msgs).toContain(`Killing QEMU gracefully. pids ${qemuPid}`);
    // QEMU removes its pid file on a clean SIGTERM shutdown.
    expect(box.exists('pidfile')).toBe(false);
    expect(msgs).toContain(`Reaped pid ${qemuPid} with status 0 (exit code 0)`);
  });

  it('SIGKILLs a QEMU that ignores SIGTERM after the grace period and exits 1', async () => {
    const qemu = box.copyAs('/bin/dash', 'qemu-system-x86_64');
    const qemuScript = `trap '' TERM; touch ${box.path('qemu-up')}; while :; do sleep 0.1; done`;
    const command = `${qemu} -c "${qemuScript}" & while [ ! -e ${box.path('qemu-up')} ]; do sleep 0.05; done`;
    const result = await runCli({
      pid1: true,
      monitorArgs: ['--qemu-stop-timeout-seconds', '1'],
      command: ['sh', '-c', command],
      env: istio.env,
      guardMs: GUARD_MS,
    }).done;
    expect(result.timedOut).toBe(false);
    expect(result.code).toBe(1);
    expect(result.logs.some((l) => l.msg.startsWith('QEMU still alive after grace period'))).toBe(true);
  });

  it('removes *.sock from the container-disk directory, nothing else', async () => {
    const dir = box.path('container-disks');
    mkdirSync(dir);
    for (const name of ['disk_0.sock', 'disk_1.sock', 'disk_0.img']) writeFileSync(`${dir}/${name}`, '');
    const result = await runCli({
      pid1: true,
      monitorArgs: ['--container-disk-dir', dir],
      command: ['true'],
      env: istio.env,
      guardMs: GUARD_MS,
    }).done;
    expect(result.code).toBe(0);
    expect(readdirSync(dir)).toEqual(['disk_0.img']);
  });
});

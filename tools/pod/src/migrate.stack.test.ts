// Live migration between two pods on one machine (issue 21), through the whole stack: virt-pod --migrate starts a
// target pod (its own namespaces, run root and libvirt daemon), joins the pods with the node's proxies and plays
// both handlers' RPCs. TCG guests, chosen deliberately (--hypervisor emulation), so this passes with or without KVM.
//   1. a migration that completes: the guest keeps running (its uptime goes on), keeps its address and is reached
//      through the target pod; the source pod ends as KubeVirt's does (domain Shutoff/Migrated, exit 0);
//   2. two migrations that must not complete, run side by side to keep the suite short: a 1 s completion timeout,
//      and a Cancel; both throttled to 1 MiB/s so they would run for minutes. The guest stays in its source pod.
import { beforeAll, describe, expect, it } from 'vitest';
import { buildDemoGuest, demoArgs, leftovers, nothingLeft, runRootOf, snapshot, startPod } from './e2e-kit.js';

beforeAll(() => buildDemoGuest());

const migrate = (...extra: string[]) =>
  demoArgs(['--hypervisor', 'emulation', '--timeout', '240', '--migrate', '--until-migrated', ...extra]);

function targetRunRootOf(output: string): string | undefined {
  return /target pod run-root (\S+)/.exec(output)?.[1];
}

describe('virt-pod run --migrate (two pods, one machine)', () => {
  it('migrates the running guest into a new pod without a reboot; the node reaches it through the target pod', async () => {
    const before = snapshot();
    const pod = startPod(migrate());
    const status = await pod.exited;
    const out = pod.output();
    expect(status, out).toBe(0);
    expect(out).toMatch(/guest lease: ip=10\.0\.2\.2 /);
    expect(out).toMatch(/block migration to a new pod/);
    expect(out).toMatch(/\[target\] .*target pod ready \(SyncMigrationTarget\)/);
    expect(out).toMatch(/migration: completed in \d+\.\d s, downtime \d+ ms/);
    // The source domain went off as migrated; the handler stand-in left it alone and the pod ended cleanly.
    expect(out).toMatch(/ {2}domain event MODIFIED: Shutoff \(Migrated\)/);
    expect(out).toMatch(/source pod exited with 0 \(its domain: Shutoff, Migrated\)/);
    // The target's launcher saw the guest arrive.
    expect(out).toMatch(/\[target\] {3}domain event ADDED: (Paused \(Migration\)|Running)/);
    expect(out).toMatch(/FinalizeVirtualMachineMigration: ok/);
    // No reboot: the uptime the guest prints every second goes on from where it was.
    const up =
      /guest uptime: (\d+) s last seen in the source pod, (\d+) s first seen in the target pod \(no reboot\)/.exec(out);
    expect(up, out).not.toBeNull();
    expect(Number(up![2])).toBeGreaterThanOrEqual(Number(up![1]));
    // Same address and MAC through the same netsetup: the node reaches the guest's web server via the target pod.
    expect(out).toMatch(/node → target pod:80 reached the guest's web server: "hello from demo"/);
    expect(leftovers(before, runRootOf(out), out)).toEqual(nothingLeft);
    expect(leftovers(before, targetRunRootOf(out), out)).toEqual(nothingLeft);
  });

  it('aborts on a tiny completion timeout, and on Cancel; the guest runs on in the source pod', async () => {
    const before = snapshot();
    const slow = ['--migrate-bandwidth', '1Mi'];
    const timeout = startPod(migrate(...slow, '--migrate-completion-timeout-per-gib', '1'));
    const cancel = startPod(migrate(...slow, '--migrate-cancel-after', '3'));
    const [timeoutStatus, cancelStatus] = await Promise.all([timeout.exited, cancel.exited]);
    const t = timeout.output();
    const c = cancel.output();

    expect(timeoutStatus, t).toBe(1);
    expect(t, t).toMatch(/Aborting migration: not completed after 1 seconds/);
    expect(t, t).toMatch(/migration abort: Succeeded/);
    expect(t, t).toMatch(/migration: failed after \d+\.\d s: Live migration has been aborted/);
    expect(t, t).toMatch(/the guest runs on in the source pod \(uptime \d+ s\)/);
    expect(t, t).not.toMatch(/Shutoff \(Migrated\)/);

    expect(cancelStatus, c).toBe(1);
    expect(c, c).toMatch(/CancelVirtualMachineMigration: ok/);
    expect(c, c).toMatch(/migration abort: Succeeded/);
    expect(c, c).toMatch(/migration: failed after \d+\.\d s: Live migration has been aborted/);
    expect(c, c).toMatch(/the guest runs on in the source pod \(uptime \d+ s\)/);

    for (const out of [t, c]) {
      expect(leftovers(before, runRootOf(out), out)).toEqual(nothingLeft);
      expect(leftovers(before, targetRunRootOf(out), out)).toEqual(nothingLeft);
    }
  });
});

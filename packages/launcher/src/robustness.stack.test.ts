// Stop signals at every phase, a second launcher on the same run root, and a daemon killed in the middle of its
// QEMU probe: each with the real launcher binary and its own libvirtd in a private root whose /dev has no KVM
// (TCG, with --allow-emulation), as in a pod. "Nothing left" is checked by the launcher's mount namespace: every
// process of that private root (node, libvirtd, virtlogd, QEMU and its probes) lives in it, QEMU included
// although libvirtd daemonizes it, so once the launcher is gone no process may remain in it.
import { afterEach, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, readlink, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { connectLauncher } from './cmd-client.js';
import type { LauncherClient } from './cmd-client.js';
import { NotifyStandIn, request } from './testing/handler-standin.js';
import { cliPath, descendants, killGuests, killTree, startLauncherInPrivateRoot } from './testing/launcher-process.js';
import type { LauncherProcess } from './testing/launcher-process.js';
import { demoGuestVmi, haveDemoGuest, stageDemoGuest } from './testing/demo-guest.js';
import { isProbeArgv } from './daemons/probe-orphans.js';

function guestVmi(uid: string): Buffer {
  return demoGuestVmi(uid, { terminationGracePeriodSeconds: 3 });
}

interface Proc {
  pid: number;
  argv: string[];
  comm: string;
}

/** Every process whose mount namespace is `ns`. */
async function processesIn(ns: string): Promise<Proc[]> {
  const out: Proc[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    if ((await readlink(`/proc/${entry}/ns/mnt`).catch(() => '')) !== ns) continue;
    const argv = (await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '')).split('\0').filter(Boolean);
    const comm = (await readFile(`/proc/${entry}/comm`, 'utf8').catch(() => '')).trim();
    // A zombie has no cmdline: it is gone already, only not yet reaped by whoever inherited it.
    if (argv.length > 0) out.push({ pid: Number(entry), argv, comm });
  }
  return out;
}

/** The launcher's node process: the wrapper execs itself into it, or runs it as a descendant. */
async function nodePid(l: LauncherProcess): Promise<number> {
  for (const deadline = Date.now() + 30_000; Date.now() < deadline;) {
    const top = l.child.pid ?? 0;
    for (const p of [top, ...(await descendants(top))]) {
      // The wrapper's own command line names cli.js too: only node running it counts (the wrapper execs into it).
      const argv = (await readFile(`/proc/${p}/cmdline`, 'utf8').catch(() => '')).split('\0');
      if (argv[0] === process.execPath && argv[1] === cliPath) return p;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`no virt-launcher process under ${l.child.pid}`);
}

/** Waits for the launcher's exit, bounded so a launcher that hangs fails the test instead of stalling it. */
async function exitOf(l: LauncherProcess, boundMs = 90_000): Promise<number | null | 'still running'> {
  const bound = new Promise<'still running'>((r) => setTimeout(() => r('still running'), boundMs));
  return Promise.race([l.exited, bound]);
}

describe.skipIf(!haveDemoGuest)('launcher robustness against a real libvirtd (TCG, no /dev/kvm)', () => {
  let root = '';
  const launchers: LauncherProcess[] = [];
  let notify: NotifyStandIn | undefined;

  afterEach(async () => {
    for (const l of launchers.splice(0)) await killTree(l);
    if (root) await killGuests(root);
    notify?.close();
    notify = undefined;
    if (root) await rm(root, { recursive: true, force: true });
    root = '';
  }, 30_000);

  async function freshRoot(): Promise<void> {
    root = await mkdtemp('/tmp/vlt-launcher-robust-');
    await stageDemoGuest(root);
    notify = new NotifyStandIn();
    await notify.listen(join(root, 'run/kubevirt/domain-notify-pipe.sock'));
  }

  function launch(uid: string): LauncherProcess {
    const l = startLauncherInPrivateRoot(root, 'none', [
      '--name',
      'guest',
      '--namespace',
      'default',
      '--uid',
      uid,
      '--allow-emulation',
      '--qemu-timeout',
      '120s',
      '--grace-period-seconds',
      '3',
    ]);
    launchers.push(l);
    return l;
  }

  /** Starts a launcher and returns it with its mount namespace. */
  async function start(uid: string): Promise<{ l: LauncherProcess; ns: string; pid: number }> {
    const l = launch(uid);
    const pid = await nodePid(l);
    return { l, ns: await readlink(`/proc/${pid}/ns/mnt`), pid };
  }

  async function waitForProbe(ns: string): Promise<Proc> {
    for (const deadline = Date.now() + 60_000; Date.now() < deadline;) {
      const probe = (await processesIn(ns)).find((p) => isProbeArgv(p.argv));
      if (probe) return probe;
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error('libvirtd never started its QEMU probe');
  }

  /**
   * virt-handler's part once the domain is off (it stays defined, so no deletionTimestamp yet): Delete it, whose
   * undefine brings the deletion event that ends the launcher's final wait.
   */
  async function deleteOnceOff(client: LauncherClient, vmi: Buffer) {
    const off = await notify?.waitFor(
      (e) => e.domain.Status.Status === 'Shutoff' && e.domain.Status.Reason !== 'Unknown',
      90_000,
    );
    expect(off?.domain.ObjectMeta.deletionTimestamp).toBeUndefined();
    expect((await client.call('deleteVirtualMachine', request(vmi), 20_000)).success).toBe(true);
    return off;
  }

  it('SIGTERM while connecting (libvirtd frozen, so the connection cannot complete): stops at once, nothing left', async () => {
    await freshRoot();
    const { l, ns, pid } = await start('u-early');
    // Freeze the daemon as soon as it exists: the launcher's connect then waits (it used to wait out 30 s and exit 2).
    let daemon: Proc | undefined;
    for (const deadline = Date.now() + 30_000; !daemon && Date.now() < deadline;) {
      daemon = (await processesIn(ns)).find((p) => p.comm === 'libvirtd');
    }
    expect(daemon).toBeDefined();
    process.kill(daemon!.pid, 'SIGSTOP');
    await l.waitForLog('phase load done', 30_000);
    process.kill(pid, 'SIGTERM');
    expect(await exitOf(l, 30_000)).not.toBe('still running');
    expect(l.lines.some((x) => x.msg === 'Marked as ready')).toBe(false);
    expect(l.lines.some((x) => x.msg === 'virt-launcher failed')).toBe(false);
    // As KubeVirt's launcher before its handler is installed, it ends by the signal (after cleaning up).
    expect(l.lines.find((x) => x.msg === 'Exiting...')?.signal).toBe('SIGTERM');
    expect(await processesIn(ns)).toEqual([]);
  }, 120_000);

  it('SIGTERM during a Sync: the domain it starts is shut down, exit 0, no QEMU left', async () => {
    await freshRoot();
    const { l, ns, pid } = await start('u-sync');
    await l.waitForLog('Marked as ready', 90_000);
    const client = await connectLauncher(l.readySocket);
    const sync = client.call('syncVirtualMachine', request(guestVmi('u-sync')), 60_000).catch((e: unknown) => e);
    await l.waitForLog('Executing PreStartHook on VMI pod environment', 60_000);
    process.kill(pid, 'SIGTERM');
    // The Sync in flight is allowed to finish (the launcher waits for it instead of pulling libvirt from under
    // it), and what it started is then stopped like any running domain: nothing is left half-made.
    expect(await sync).toEqual({ success: true, message: '' });
    await deleteOnceOff(client, guestVmi('u-sync'));
    client.close();
    expect(await exitOf(l)).toBe(0);
    expect(await processesIn(ns)).toEqual([]);
    expect(l.lines.some((x) => x.msg === 'Domain started.')).toBe(true);
    expect(l.lines.some((x) => x.msg === 'Domain default_guest found')).toBe(true);
    expect(notify?.events.some((e) => e.domain.ObjectMeta.deletionTimestamp !== undefined)).toBe(true);
  }, 180_000);

  it('SIGTERM right after the domain started: graceful, then destroyed after the grace period, exit 0', async () => {
    await freshRoot();
    const { l, ns, pid } = await start('u-late');
    await l.waitForLog('Marked as ready', 90_000);
    const client = await connectLauncher(l.readySocket);
    expect((await client.call('syncVirtualMachine', request(guestVmi('u-late')), 60_000)).success).toBe(true);
    process.kill(pid, 'SIGTERM');
    // No Shutdown answers the mark here: the grace period runs out and the launcher destroys the domain.
    const off = await deleteOnceOff(client, guestVmi('u-late'));
    expect(off?.domain.Status.Reason).toBe('Destroyed');
    client.close();
    expect(await exitOf(l)).toBe(0);
    expect(await processesIn(ns)).toEqual([]);
    await notify?.waitFor((e) => e.domain.ObjectMeta.deletionTimestamp !== undefined, 5000);
  }, 180_000);

  // Issue 36 items 4 and 6: the launcher is the last check before libvirt. A VMI that is not the pod's, and the
  // pod's own with its pod-network NIC marked absent (KubeVirt's admission refuses it: pkg/network/admitter/admit.go),
  // are answered success:false naming the field; nothing is defined, no QEMU runs, and the launcher keeps serving.
  it('a Sync for another VMI, or unplugging the pod network NIC, is refused: nothing defined, no QEMU', async () => {
    await freshRoot();
    const { l, ns, pid } = await start('u-own');
    await l.waitForLog('Marked as ready', 90_000);
    const client = await connectLauncher(l.readySocket);
    const foreign = await client.call(
      'syncVirtualMachine',
      request(demoGuestVmi('u-other', { name: 'other' })),
      60_000,
    );
    expect(foreign).toEqual({
      success: false,
      message:
        'VMI default/other is not this pod\'s: metadata.name "other" is not --name "guest", metadata.uid "u-other" ' +
        'is not --uid "u-own"; nothing was defined or started',
    });
    const unplugged = demoGuestVmi('u-own', {
      interfaces: [{ name: 'default', masquerade: {}, state: 'absent' }],
      networks: [{ name: 'default', pod: {} }],
    });
    const absent = await client.call('syncVirtualMachine', request(unplugged), 60_000);
    expect(absent.success).toBe(false);
    expect(absent.message).toContain('spec.domain.devices.interfaces[0].state: "absent" cannot unplug "default"');
    expect((await client.call('getDomain', {}, 20_000)).domain).toBe('');
    // libvirtd's capability probes (QEMU with machine "none") may run meanwhile: only a guest's QEMU counts.
    const guests = (await processesIn(ns)).filter((p) => p.comm.startsWith('qemu-system') && !isProbeArgv(p.argv));
    expect(guests).toEqual([]);
    expect(await client.call('ping', {}, 10_000)).toEqual({ success: true, message: '' });
    client.close();
    process.kill(pid, 'SIGTERM');
    expect(await exitOf(l)).toBe(0);
  }, 180_000);

  it('a second launcher on the same run root refuses at once and leaves the first one working', async () => {
    await freshRoot();
    const first = await start('u-first');
    await first.l.waitForLog('Marked as ready', 90_000);
    const socket = join(root, 'run/libvirt/virtqemud-sock');
    expect(existsSync(socket)).toBe(true);

    const second = launch('u-second');
    expect(await exitOf(second, 30_000)).toBe(2);
    const failure = second.lines.find((x) => x.msg === 'virt-launcher failed');
    expect(String(failure?.reason)).toMatch(/virtqemud-sock is served by a running libvirtd.*another virt-launcher/);
    // Nothing of the first one was touched: its daemon socket is there and it still answers.
    expect(existsSync(socket)).toBe(true);
    const client = await connectLauncher(first.l.readySocket);
    expect(await client.call('ping', {}, 10_000)).toEqual({ success: true, message: '' });
    expect((await client.call('getQemuVersion', {}, 60_000)).response?.success).toBe(true);
    client.close();
    process.kill(first.pid, 'SIGTERM');
    expect(await exitOf(first.l)).toBe(0);
  }, 180_000);

  it('libvirtd SIGKILLed during its QEMU probe: the orphaned probe is killed, the launcher still gets ready', async () => {
    await freshRoot();
    const { l, ns, pid } = await start('u-probe');
    await l.waitForLog('Marked as ready', 90_000);
    // libvirtd probes QEMU on the first request that needs its capabilities: the QEMU version is one.
    const client = await connectLauncher(l.readySocket);
    const version = client.call('getQemuVersion', {}, 60_000).catch((e: unknown) => e);
    const probe = await waitForProbe(ns);
    // libvirtd runs several probes one after another: hold this one, so that it is still there when the daemon dies
    // (else the daemon may already have reaped it and started the next, and the orphan is another pid).
    process.kill(probe.pid, 'SIGSTOP');
    const daemon = (await processesIn(ns)).find((p) => p.comm === 'libvirtd');
    expect(daemon).toBeDefined();
    process.kill(daemon!.pid, 'SIGKILL');
    await l.waitForLog('libvirtd exited, restarting', 30_000);
    await l.waitForLog(`killed QEMU capability probe ${probe.pid} left by libvirtd`, 30_000);
    await version;
    expect((await processesIn(ns)).some((p) => p.pid === probe.pid)).toBe(false);
    // The restarted daemon serves again (it probes anew, and that probe is not touched).
    await l.waitForLog(/Connected to libvirt daemon/, 30_000);
    await expect
      .poll(async () => (await client.call('getQemuVersion', {}, 60_000).catch(() => ({ version: '' }))).version, {
        timeout: 60_000,
      })
      .toMatch(/\d/);
    client.close();
    process.kill(pid, 'SIGTERM');
    expect(await exitOf(l)).toBe(0);
    expect(await processesIn(ns)).toEqual([]);
  }, 180_000);
});

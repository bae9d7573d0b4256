// Handler conformance: the test plays a stock virt-handler against the real launcher (its own libvirtd in a
// private root, the demo guest under TCG) step by step, and reads every payload the way the handler's Go code
// would (testing/go-decode.ts against KubeVirt's field table): Info → Sync → events until Running → GetDomain →
// GetDomainStats → guest power-off → the VMI would be Succeeded → Delete → the launcher exits; and SIGTERM → the
// graceful mark → Shutdown → Succeeded. One guest boot per scenario; each scenario is one `it`.
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { connectLauncher } from './cmd-client.js';
import type { LauncherClient } from './cmd-client.js';
import { NotifyStandIn, request } from './testing/handler-standin.js';
import type { ReceivedEvent } from './testing/handler-standin.js';
import { demoGuestVmi, haveDemoGuest, stageDemoGuest } from './testing/demo-guest.js';
import { goDecode } from './testing/go-decode.js';
import { killGuests, killTree, signalLauncherNode, startLauncherInPrivateRoot } from './testing/launcher-process.js';
import type { LauncherProcess } from './testing/launcher-process.js';

type AnyJson = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const GUEST_AGENT_CHANNEL = 'org.qemu.guest_agent.0';

/** virt-handler's final phase for a shut-off domain's reason (its table; with ACPI, Destroyed means forced). */
function phaseOfReason(reason: string): 'Succeeded' | 'Failed' | undefined {
  if (reason === 'Shutdown' || reason === 'Saved' || reason === 'FromSnapshot') return 'Succeeded';
  if (reason === 'Crashed' || reason === 'Panicked' || reason === 'Destroyed') return 'Failed';
  return undefined;
}

/**
 * What virt-handler concludes from the events in order: a domain that reports itself deleted (deletionTimestamp)
 * before it reported how it ended means the VMI's domain vanished: Failed. A shut-off domain that still exists
 * gives the phase from its reason.
 */
function handlerPhase(events: ReceivedEvent[]): 'Succeeded' | 'Failed' | undefined {
  for (const e of events) {
    if (e.domain.ObjectMeta.deletionTimestamp !== undefined) return 'Failed';
    const { Status, Reason } = e.domain.Status;
    if (Status === 'Shutoff' || Status === 'Crashed') {
      const phase = phaseOfReason(Reason);
      if (phase) return phase;
    }
  }
  return undefined;
}

/** The guest's serial console: QEMU binds the socket when it starts, so dial until it exists. */
class SerialConsole {
  text = '';
  private sock: Socket | undefined;

  constructor(private readonly path: string) {}

  waitFor(pattern: RegExp, timeoutMs = 120_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    return new Promise((resolveP, reject) => {
      const check = setInterval(() => {
        if (pattern.test(this.text)) {
          clearInterval(check);
          resolveP();
        } else if (Date.now() > deadline) {
          clearInterval(check);
          reject(new Error(`console never showed ${pattern}; got:\n${this.text}`));
        }
      }, 100);
      const dial = () => {
        if (this.sock || Date.now() > deadline) return;
        const s = connect(this.path);
        s.on('connect', () => (this.sock = s));
        s.on('data', (d) => (this.text += d.toString()));
        s.on('error', () => setTimeout(dial, 200));
      };
      dial();
    });
  }

  type(line: string): void {
    this.sock?.write(`${line}\n`);
  }

  close(): void {
    this.sock?.destroy();
  }
}

describe.skipIf(!haveDemoGuest)('handler conformance: the launcher as a stock virt-handler sees it', () => {
  let root = '';
  let launcher: LauncherProcess | undefined;
  let notify: NotifyStandIn | undefined;
  let client: LauncherClient | undefined;
  let serial: SerialConsole | undefined;

  afterEach(async () => {
    client?.close();
    serial?.close();
    if (launcher) await killTree(launcher);
    if (root) await killGuests(root);
    notify?.close();
    if (root) await rm(root, { recursive: true, force: true });
    root = '';
  }, 30_000);

  /** Steps shared by both scenarios: launcher up, Info handshake, Sync, events until Running, guest ready. */
  async function runningGuest(uid: string): Promise<{ l: LauncherProcess; c: LauncherClient; vmi: Buffer }> {
    root = await mkdtemp('/tmp/vlt-launcher-conformance-');
    await stageDemoGuest(root);
    notify = new NotifyStandIn();
    await notify.listen(join(root, 'run/kubevirt/domain-notify-pipe.sock'));
    // TCG on any host: the private root has no /dev/kvm and emulation is allowed.
    const l = startLauncherInPrivateRoot(root, 'none', [
      ...['--name', 'guest', '--namespace', 'default', '--uid', uid, '--allow-emulation'],
      ...['--qemu-timeout', '240s', '--grace-period-seconds', '30'],
    ]);
    launcher = l;
    await l.waitForLog('Marked as ready', 120_000);

    // Info handshake: the handler dials, asks CmdInfo.Info and picks the highest common version.
    const c = await connectLauncher(l.readySocket, { callTimeoutMs: 20_000 });
    client = c;
    expect(c.serverVersions).toContain(1);
    expect(c.version).toBe(1);

    const vmi = demoGuestVmi(uid, { terminationGracePeriodSeconds: 30 });
    expect(await c.call('syncVirtualMachine', request(vmi), 120_000)).toEqual({ success: true, message: '' });
    const added = await notify.waitFor((e) => e.eventType === 'ADDED', 120_000);
    expect(added.domain.ObjectMeta).toMatchObject({ name: 'guest', namespace: 'default' });
    await notify.waitFor((e) => e.domain.Status.Status === 'Running', 120_000);
    expect(notify.events.filter((e) => e.eventType === 'ADDED')).toHaveLength(1);

    // acpid and qemu-ga start before "ready": from then on the power button and the agent channel work.
    serial = new SerialConsole(join(root, `run/kubevirt-private/${uid}/virt-serial0`));
    await serial.waitFor(/VLT-GUEST: ready/, 180_000);
    return { l, c, vmi };
  }

  /** Every domain event so far decodes into api.Domain (no unknown key, no wrong type). */
  function expectEventsDecode(): void {
    for (const e of notify?.events ?? []) expect(() => goDecode('Domain', e.domain)).not.toThrow();
  }

  /** The domain's shut-off event, its Delete, the deletion event and the launcher's exit. */
  async function offThenDelete(l: LauncherProcess, c: LauncherClient, vmi: Buffer): Promise<ReceivedEvent> {
    const off = await notify!.waitFor(
      (e) => e.domain.Status.Status === 'Shutoff' && e.domain.Status.Reason !== 'Unknown',
      120_000,
    );
    expect(off.domain.Status.Reason).toBe('Shutdown');
    // Still defined: no deletionTimestamp, so the handler keeps the domain and decides the phase from the reason.
    expect(off.domain.ObjectMeta.deletionTimestamp).toBeUndefined();
    expect(handlerPhase(notify!.events)).toBe('Succeeded');
    const viaGet = JSON.parse((await c.call('getDomain', {})).domain) as AnyJson;
    expect(viaGet.Status).toMatchObject({ Status: 'Shutoff', Reason: 'Shutdown' });
    expect(viaGet.ObjectMeta.deletionTimestamp).toBeUndefined();

    expect(await c.call('deleteVirtualMachine', request(vmi), 30_000)).toEqual({ success: true, message: '' });
    const gone = await notify!.waitFor((e) => e.domain.ObjectMeta.deletionTimestamp !== undefined, 60_000);
    expect(gone.eventType).toBe('MODIFIED');
    expect(gone.domain.Status).toMatchObject({ Status: 'NoState', Reason: 'NonExistent' });
    expect(handlerPhase(notify!.events)).toBe('Succeeded'); // the phase was decided before the deletion
    expectEventsDecode();
    expect(await l.exited).toBe(0);
    expect(l.lines.some((x) => /Attempting to kill domain/.test(x.msg))).toBe(false);
    return off;
  }

  it('Info → Sync → Running → GetDomain and GetDomainStats decode with Go rules → guest power-off → Succeeded → Delete → exit', async () => {
    const uid = 'u-conform-off';
    const { l, c, vmi } = await runningGuest(uid);

    // GetDomain: api.Domain, every key known, and the fields virt-handler reads are filled.
    const get = async () => {
      const res = await c.call('getDomain', {});
      expect(res.response?.success).toBe(true);
      return goDecode('Domain', res.domain) as AnyJson;
    };
    const dom = await get();
    expect(dom).toMatchObject({
      kind: 'Domain',
      apiVersion: '1.2.2',
      ObjectMeta: { name: 'guest', namespace: 'default' },
    });
    expect(dom.Status).toMatchObject({ Status: 'Running', Reason: expect.any(String), PanicCount: 0 });
    expect(dom.Status).toHaveProperty('Interfaces');
    expect(dom.Status).toHaveProperty('OSInfo');
    expect(dom.Spec.Features.ACPI).toEqual({}); // the handler's ACPI check: present means enabled
    expect(dom.Spec.CurrentMemory).toMatchObject({ Value: expect.any(Number), Unit: 'KiB' });
    expect(dom.Spec.Memory.Value).toBeGreaterThan(0);
    expect(dom.Spec.VCPU.CPUs).toBeGreaterThanOrEqual(1);
    expect(dom.Spec.CPU).toHaveProperty('Mode');
    expect(dom.Spec.Devices.Disks[0]).toMatchObject({ Alias: { Name: 'containerdisk', UserDefined: true } });
    // The pod network's interface, named as in the VMI, and the default video device.
    const iface = (dom.Spec.Devices.Interfaces as AnyJson[]).find((i) => i.Alias?.Name === 'default');
    expect(iface).toMatchObject({ XMLName: { Local: 'interface' }, Alias: { UserDefined: true }, LinkState: null });
    expect(iface?.Target.Device).toEqual(expect.any(String));
    expect(dom.Spec.Devices.Video[0].Model.Type).toEqual(expect.any(String));
    expect(dom.Spec.Metadata.KubeVirt).toMatchObject({ UID: uid, Migration: null, AccessCredential: null });
    // The AgentConnected condition reads the agent channel's state, which libvirt keeps in the live XML.
    const agentState = async () =>
      ((await get()).Spec.Devices.Channels as AnyJson[]).find((ch) => ch.Target?.Name === GUEST_AGENT_CHANNEL)?.Target
        ?.State;
    await expect.poll(agentState, { timeout: 60_000, interval: 500 }).toBe('connected');

    // GetDomainStats: stats.DomainStats with VMI names on devices, Total from the balloon, the CPU map.
    const statsRes = await c.call('getDomainStats', {});
    expect(statsRes.response?.success).toBe(true);
    const stats = goDecode('DomainStats', statsRes.domainStats, 'stats') as AnyJson;
    expect(stats.Name).toBe('default_guest');
    expect(stats.Cpu.TimeSet).toBe(true);
    expect(stats.Memory).toMatchObject({ TotalSet: true, Total: dom.Spec.CurrentMemory.Value });
    expect(stats.Vcpu.length).toBe(dom.Spec.VCPU.CPUs);
    expect(stats.Block.find((b: AnyJson) => b.Name === 'vda')).toMatchObject({ Alias: 'containerdisk', NameSet: true });
    expect(stats.Net.find((n: AnyJson) => n.Name === iface?.Target.Device)).toMatchObject({
      AliasSet: true,
      Alias: 'default',
    });
    expect(stats.CPUMapSet).toBe(true);
    expect(stats.CPUMap).toHaveLength(stats.Vcpu.length);
    expect(stats.MigrateDomainJobInfo).toBeNull(); // no job runs

    // The guest powers itself off (ACPI S5 from inside): Shutoff/Shutdown while the domain still exists.
    serial!.type('poweroff -f');
    await offThenDelete(l, c, vmi);
  }, 420_000);

  it('SIGTERM → MODIFIED with the graceful mark → the handler sends Shutdown → Succeeded → Delete → exit', async () => {
    const { l, c, vmi } = await runningGuest('u-conform-term');
    const before = notify!.events.length;
    await signalLauncherNode(l, 'SIGTERM');
    const marked = await notify!.waitFor(
      (e) => e.domain.Spec.Metadata?.KubeVirt?.GracePeriod?.MarkedForGracefulShutdown === true,
      60_000,
    );
    expect(marked.eventType).toBe('MODIFIED');
    expect(marked.domain.Status.Status).toBe('Running'); // the launcher only marks; the handler decides
    expect(marked.domain.ObjectMeta.deletionTimestamp).toBeUndefined();
    expect(notify!.events.indexOf(marked)).toBeGreaterThanOrEqual(before);
    expect(() => goDecode('Domain', marked.domain)).not.toThrow();
    // Grace period 30 s and ACPI on: virt-handler chooses Shutdown (Kill only for a grace period of 0).
    expect(await c.call('shutdownVirtualMachine', request(vmi), 30_000)).toEqual({ success: true, message: '' });
    await offThenDelete(l, c, vmi);
  }, 420_000);
});

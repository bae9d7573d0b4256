// The runtime reconcile's diffing (desired vs live) and its effects, against the fake connection's domain.
import { mkdtemp, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeConnection } from '../../../testing/fake-connection.js';
import { FakeRuntimeDomain } from '../../../testing/fake-runtime-domain.js';
import { planCpus, syncCpus } from './cpus.js';
import { planDisks } from './disk-plan.js';
import { syncDisks } from './disks.js';
import { planInterfaces, syncInterfaces } from './interfaces.js';
import { planMemory, syncMemory } from './memory.js';
import { secondaryTapName, volumeStatusMaps } from './context-facts.js';
import { parseVmiRequest } from '../../../vmi.js';
import { RuntimeSyncError, type RuntimeEnv } from './types.js';

const HP = '/var/run/kubevirt/hotplug-disks';
const boot = `<disk type="file" device="disk"><driver name="qemu" type="qcow2"/><source file="/var/run/kubevirt-ephemeral-disks/disk-data/containerdisk/disk.qcow2"/><target dev="vda" bus="virtio"/><alias name="ua-containerdisk"/></disk>`;
const hotplug = (name: string, dev: string, dir = HP) =>
  `<disk type="file" device="disk"><driver name="qemu" type="raw" discard="unmap"/><source file="${dir}/${name}.img"/><target dev="${dev}" bus="virtio"/><alias name="ua-${name}"/></disk>`;
const nic = (name: string, tap: string, link = '') =>
  `<interface type="ethernet"><mac address="02:00:00:00:00:0${name.length}"/><target dev="${tap}" managed="no"/><model type="virtio"/>${link}<alias name="ua-${name}"/></interface>`;
const domain = (devices: string, extra = '') =>
  `<domain type="qemu"><name>default_guest</name><vcpu placement="static" current="1">2</vcpu>${extra}<devices>${devices}</devices></domain>`;

describe('disk plan', () => {
  it('attaches a hotplug disk the VMI gained, detaches one it lost, and leaves the rest', () => {
    const desired = domain(boot + hotplug('data', 'vdb'));
    expect(planDisks(desired, domain(boot), HP).attach.map((d) => [d.volume, d.target])).toEqual([['data', 'vdb']]);
    const gone = planDisks(domain(boot), domain(boot + hotplug('data', 'vdb')), HP);
    expect(gone.attach).toEqual([]);
    expect(gone.detach.map((d) => d.volume)).toEqual(['data']);
    expect(planDisks(desired, desired, HP)).toEqual({ attach: [], detach: [] });
  });

  it('never touches a disk outside the hotplug directory or on a bus that cannot hot-plug', () => {
    const other = hotplug('data', 'vdb', '/var/run/kubevirt-private/vmi-disks/data');
    expect(planDisks(domain(boot + other), domain(boot), HP).attach).toEqual([]);
    expect(planDisks(domain(boot), domain(boot + other), HP).detach).toEqual([]);
    const sata = hotplug('data', 'sda').replace('bus="virtio"', 'bus="sata"');
    expect(planDisks(domain(boot + sata), domain(boot), HP).attach).toEqual([]);
  });
});

describe('disk sync against the fake domain', () => {
  let root = '';
  let conn: FakeConnection;
  let env: RuntimeEnv;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'vlt-runtime-'));
    conn = await FakeConnection.open();
    // The launcher's flag default ends in '/': the plan and the resize must both accept that.
    env = { conn: () => conn, hotplugDir: `${HP}/`, local: (p) => join(root, p), detachTimeoutMs: 2_000 };
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  const backing = async (name: string, bytes: number) => {
    const file = join(root, HP, `${name}.img`);
    await writeFile(file, '', { flag: 'a' }).catch(async () => {
      const { mkdir } = await import('node:fs/promises');
      await mkdir(join(root, HP), { recursive: true });
      await writeFile(file, '');
    });
    await truncate(file, bytes);
  };

  it('attaches, then a second sync changes nothing, then a grown file is resized, then unplug detaches', async () => {
    await backing('data', 1 << 20);
    const dom = new FakeRuntimeDomain(conn, 'default_guest', domain(boot));
    const desired = domain(boot + hotplug('data', 'vdb'));
    const first = await syncDisks(env, dom, desired, dom.xml);
    expect(first.attached).toEqual(['data']);
    expect(dom.xml).toContain('ua-data');
    // The attached XML got a cache mode chosen for the file, as at define time.
    expect(dom.runtimeCalls.find((c) => c.call === 'attachDevice')?.arg).toMatch(/cache="(none|writethrough)"/);
    dom.capacities.set('vdb', 1 << 20);
    const again = await syncDisks(env, dom, desired, dom.xml);
    expect(again).toEqual({ attached: [], detached: [], resized: [] });
    await backing('data', 2 << 20);
    expect((await syncDisks(env, dom, desired, dom.xml)).resized).toEqual(['data']);
    expect(dom.capacities.get('vdb')).toBe(2 << 20);
    const unplug = await syncDisks(env, dom, domain(boot), dom.xml);
    expect(unplug.detached).toEqual(['data']);
    expect(dom.xml).not.toContain('ua-data');
  });

  it('a missing backing file is refused by name before anything is attached', async () => {
    const dom = new FakeRuntimeDomain(conn, 'default_guest', domain(boot));
    const before = dom.xml;
    const err = await syncDisks(env, dom, domain(boot + hotplug('nofile', 'vdc')), dom.xml).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RuntimeSyncError);
    expect((err as RuntimeSyncError).field).toBe('spec.volumes[nofile]');
    expect((err as Error).message).toContain(`${HP}/nofile.img`);
    expect(dom.runtimeCalls.filter((c) => c.call === 'attachDevice')).toEqual([]);
    expect(dom.xml).toBe(before);
  });

  it('when the second attach fails, the first is taken back: the domain is as it was', async () => {
    await backing('one', 1 << 20);
    await backing('two', 1 << 20);
    const dom = new FakeRuntimeDomain(conn, 'default_guest', domain(boot));
    const before = dom.xml;
    const attach = dom.attachDevice.bind(dom);
    let n = 0;
    dom.attachDevice = async (xml: string) => {
      if (++n === 2) dom.failNextRuntime('attachDevice', 'no free PCI slot');
      return attach(xml);
    };
    const err = await syncDisks(env, dom, domain(boot + hotplug('one', 'vdb') + hotplug('two', 'vdc')), dom.xml).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(RuntimeSyncError);
    expect((err as Error).message).toContain('no free PCI slot');
    expect(dom.xml).toBe(before);
  });
});

describe('interface plan and sync', () => {
  it('attaches a new NIC, sets link state changes, and detaches only NICs marked absent', async () => {
    const live = domain(nic('default', 'tap0'));
    const desired = domain(nic('default', 'tap0') + nic('blue', 'tapabc'));
    expect(planInterfaces(desired, live, new Set()).attach.map((d) => d.alias)).toEqual(['ua-blue']);
    const down = domain(nic('default', 'tap0') + nic('blue', 'tapabc', `<link state="down"/>`));
    const linkPlan = planInterfaces(down, desired, new Set());
    expect(linkPlan.link.map((l) => [l.device.alias, l.state])).toEqual([['ua-blue', 'down']]);
    // A NIC the VMI does not mark absent is never unplugged, even when the desired XML lacks it.
    expect(planInterfaces(live, desired, new Set()).detach).toEqual([]);
    expect(planInterfaces(live, desired, new Set(['blue'])).detach.map((d) => d.alias)).toEqual(['ua-blue']);

    const conn = await FakeConnection.open();
    const dom = new FakeRuntimeDomain(conn, 'default_guest', live);
    expect((await syncInterfaces(dom, desired, dom.xml, new Set())).attached).toEqual(['blue']);
    expect((await syncInterfaces(dom, down, dom.xml, new Set())).linked).toEqual(['blue=down']);
    expect(dom.xml).toMatch(/<link state='down'\/>/);
    expect(await syncInterfaces(dom, down, dom.xml, new Set())).toEqual({ attached: [], detached: [], linked: [] });
    expect((await syncInterfaces(dom, live, dom.xml, new Set(['blue']))).detached).toEqual(['blue']);
    expect(dom.xml).not.toContain('ua-blue');
  });

  it("names a secondary network's tap as KubeVirt does", () => {
    expect(secondaryTapName('blue')).toMatch(/^tap[0-9a-f]{11}$/);
    expect(secondaryTapName('blue')).toBe(secondaryTapName('blue'));
    expect(secondaryTapName('blue')).not.toBe(secondaryTapName('red'));
  });
});

describe('vCPUs', () => {
  it('plans within the slots the domain was defined with and refuses more', () => {
    expect(planCpus({ sockets: 2 }, domain(''))).toEqual({ requested: 2, maximum: 2, current: 1 });
    expect(() => planCpus({ sockets: 3 }, domain(''))).toThrow(RuntimeSyncError);
    expect(() => planCpus({ sockets: 3 }, domain(''))).toThrow(/spec\.domain\.cpu\.sockets "3"/);
  });

  it('sets the count once; a repeated sync calls nothing', async () => {
    const dom = new FakeRuntimeDomain(await FakeConnection.open(), 'default_guest', domain(''));
    expect(await syncCpus(dom, { sockets: 2, maxSockets: 2 })).toBe(2);
    expect(await syncCpus(dom, { sockets: 2, maxSockets: 2 })).toBeUndefined();
    expect(dom.runtimeCalls.map((c) => `${c.call}:${c.arg}`)).toEqual(['setVcpus:2']);
  });
});

describe('memory (virtio-mem)', () => {
  const mem = `<maxMemory slots="1" unit="KiB">524288</maxMemory><memory unit="KiB">131072</memory>`;
  it('attaches a virtio-mem device spanning maxGuest minus boot memory, then updates its requested size', async () => {
    const first = planMemory({ guest: '256Mi', maxGuest: '512Mi' }, domain('', mem));
    expect(first.action).toBe('attach');
    expect(first.xml).toContain("<size unit='KiB'>393216</size>");
    expect(first.xml).toContain("<requested unit='KiB'>131072</requested>");
    const dom = new FakeRuntimeDomain(await FakeConnection.open(), 'default_guest', domain('', mem));
    expect(await syncMemory(dom, { guest: '256Mi', maxGuest: '512Mi', guestAtBoot: '128Mi' })).toBe('attach');
    expect(await syncMemory(dom, { guest: '256Mi', maxGuest: '512Mi', guestAtBoot: '128Mi' })).toBe('none');
    // A grown request updates the live device in place (planned here on a live XML that already has it).
    const live = domain(first.xml, mem.replace('131072', '524288'));
    const grow = planMemory({ guest: '384Mi', maxGuest: '512Mi', guestAtBoot: '128Mi' }, live);
    expect(grow.action).toBe('update');
    expect(grow.xml).toContain("<requested unit='KiB'>262144</requested>");
  });

  it('refuses a size outside boot..maxGuest or off the 2Mi grid, naming the field', () => {
    expect(() => planMemory({ guest: '1Gi', maxGuest: '512Mi' }, domain('', mem))).toThrow(
      /spec\.domain\.memory\.guest/,
    );
    expect(() => planMemory({ guest: '64Mi', maxGuest: '512Mi' }, domain('', mem))).toThrow(RuntimeSyncError);
    expect(() => planMemory({ guest: '129Mi', maxGuest: '512Mi' }, domain('', mem))).toThrow(/2Mi/);
    expect(() => planMemory({ guest: 'lots', maxGuest: '512Mi' }, domain('', mem))).toThrow(/"lots"/);
  });
});

describe('volume status as virt-handler writes it', () => {
  it('an entry with hotplugVolume is a hotplug volume, any other a permanent one', () => {
    const doc = {
      apiVersion: 'kubevirt.io/v1',
      kind: 'VirtualMachineInstance',
      metadata: { name: 'g', namespace: 'default', uid: 'u' },
      spec: { domain: { devices: {} } },
      status: {
        volumeStatus: [
          { name: 'root', target: 'vda', phase: 'Ready' },
          { name: 'hp', target: '', phase: 'MountedToPod', hotplugVolume: { attachPodName: 'p' } },
        ],
      },
    };
    expect(volumeStatusMaps(parseVmiRequest(Buffer.from(JSON.stringify(doc))))).toEqual({
      hotplugVolumes: { hp: { name: 'hp', target: '', phase: 'MountedToPod' } },
      permanentVolumes: { root: { name: 'root', target: 'vda', phase: 'Ready' } },
    });
    // Without any hotplug volume the permanent map stays empty: every disk is kept, whatever the status lists.
    doc.status.volumeStatus = doc.status.volumeStatus.slice(0, 1);
    expect(volumeStatusMaps(parseVmiRequest(Buffer.from(JSON.stringify(doc))))).toEqual({
      hotplugVolumes: {},
      permanentVolumes: {},
    });
  });
});

// Which tagged devices a config drive lists, and with what, read from a defined domain's XML (libvirt's shape:
// the stack test config-drive-devices.stack.test.ts checks the same against a real libvirtd).
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildDeviceMetadata,
  DeviceMetadataError,
  hasDeviceTags,
  readDeviceTags,
  type HostPciFacts,
} from './device-metadata.js';
import { sysfsPciFacts } from './host-pci.js';

const pci = (bus: string, slot = '0x00') =>
  `<address type='pci' domain='0x0000' bus='${bus}' slot='${slot}' function='0x0'/>`;
const hostdev = (alias: string, guestBus: string, hostBus: string) =>
  `<hostdev mode='subsystem' type='pci' managed='no'><source>${pci(hostBus)}</source>` +
  `<alias name='ua-${alias}'/>${pci(guestBus)}</hostdev>`;

const DOMAIN = `<domain type='qemu'><name>default_vm</name>
<cputune><vcpupin vcpu='0' cpuset='4'/><vcpupin vcpu='1' cpuset='5'/><vcpupin vcpu='2' cpuset='9'/></cputune>
<devices>
  <disk type='file' device='disk'><alias name='ua-root'/>${pci('0x07')}</disk>
  <interface type='ethernet'><mac address='02:00:00:aa:bb:01'/><alias name='ua-plain'/>${pci('0x01')}</interface>
  <interface type='ethernet'><mac address='02:00:00:aa:bb:02'/><alias name='ua-blue'/>${pci('0x02')}</interface>
  ${hostdev('sriov-vf', '0x03', '0x3d')}
  ${hostdev('hostdevice-qat', '0x04', '0x3e')}
  ${hostdev('gpu-t4', '0x05', '0x3f')}
  ${hostdev('hostdevice-untagged', '0x06', '0x40')}
</devices></domain>`;

function vmi(cpu: object = {}, interfaces: object[] = [{ name: 'blue', tag: 'uplink' }, { name: 'plain' }]): Buffer {
  const devices = {
    disks: [{ name: 'root', tag: 'rootdisk' }],
    interfaces: [...interfaces, { name: 'vf', sriov: {}, tag: 'fast' }],
    hostDevices: [{ name: 'qat', tag: 'crypto' }, { name: 'untagged' }],
    gpus: [{ name: 't4', tag: 'render' }],
  };
  return Buffer.from(JSON.stringify({ spec: { domain: { cpu, devices } } }));
}

/** A host without NUMA facts: every device on "no node". */
const noNuma: HostPciFacts = { numaNode: async () => undefined, nodeCpus: async () => undefined };

const base = { mac: '', serial: '', numaNode: undefined, alignedCpus: [] };

describe('config drive device metadata from the defined domain', () => {
  it('lists tagged NICs (with MAC), then tagged host devices, SR-IOV VFs and GPUs, at their guest PCI addresses', async () => {
    expect(await buildDeviceMetadata(DOMAIN, readDeviceTags(vmi()), noNuma)).toEqual([
      { ...base, type: 'nic', bus: 'pci', address: '0000:02:00.0', mac: '02:00:00:aa:bb:02', tags: ['uplink'] },
      { ...base, type: 'nic', bus: 'pci', address: '0000:03:00.0', tags: ['fast'] },
      { ...base, type: 'hostdev', bus: 'pci', address: '0000:04:00.0', tags: ['crypto'] },
      { ...base, type: 'hostdev', bus: 'pci', address: '0000:05:00.0', tags: ['render'] },
    ]);
  });

  it('reads the tags of interfaces, host devices and GPUs only (a disk tag is listed by nobody)', () => {
    const tags = readDeviceTags(vmi());
    expect(Object.fromEntries(tags.interfaces)).toEqual({ blue: 'uplink', vf: 'fast' });
    expect(Object.fromEntries(tags.hostDevices)).toEqual({ qat: 'crypto' });
    expect(Object.fromEntries(tags.gpus)).toEqual({ t4: 'render' });
    const untagged = Buffer.from(
      JSON.stringify({ spec: { domain: { devices: { disks: [{ name: 'd', tag: 'x' }] } } } }),
    );
    expect(hasDeviceTags(readDeviceTags(untagged))).toBe(false);
  });

  it('refuses a tagged NIC the domain holds at no PCI address, naming it', async () => {
    const xml = `<domain><devices><interface type='ethernet'><alias name='ua-blue'/></interface></devices></domain>`;
    const err = await buildDeviceMetadata(xml, readDeviceTags(vmi()), noNuma).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DeviceMetadataError);
    expect((err as DeviceMetadataError).field).toBe('spec.domain.devices.interfaces[blue].tag');
  });

  describe('NUMA facts of host devices, from sysfs', () => {
    let sys = '';
    beforeAll(async () => {
      sys = await mkdtemp(join(tmpdir(), 'vlt-launcher-sysfs-'));
      const put = async (path: string, text: string) => {
        await mkdir(join(sys, path, '..'), { recursive: true });
        await writeFile(join(sys, path), text);
      };
      await put('bus/pci/devices/0000:3d:00.0/numa_node', '1\n');
      await put('bus/pci/devices/0000:3e:00.0/numa_node', '-1\n');
      await put('bus/pci/devices/0000:3f:00.0/numa_node', '1\n');
      await put('bus/node/devices/node1/cpulist', '4,8-9\n');
    });
    afterAll(() => rm(sys, { recursive: true, force: true }));

    const factsOf = async (cpu: object) =>
      (await buildDeviceMetadata(DOMAIN, readDeviceTags(vmi(cpu)), sysfsPciFacts(sys))).map((d) => [
        d.tags[0],
        d.numaNode,
        d.alignedCpus,
      ]);

    it('with guest NUMA passthrough: the host node of each host device (none for -1; NICs have none)', async () => {
      expect(await factsOf({ numa: { guestMappingPassthrough: {} }, dedicatedCpuPlacement: true })).toEqual([
        ['uplink', undefined, []],
        ['fast', 1, []],
        ['crypto', undefined, []],
        ['render', 1, []],
      ]);
    });

    it("with dedicated CPUs: the vCPUs pinned on the device node's CPUs", async () => {
      expect(await factsOf({ dedicatedCpuPlacement: true })).toEqual([
        ['uplink', undefined, []],
        ['fast', undefined, [0, 2]],
        ['crypto', undefined, []],
        ['render', undefined, [0, 2]],
      ]);
    });

    it('otherwise none', async () => {
      expect((await factsOf({})).every(([, node, cpus]) => node === undefined && (cpus as number[]).length === 0)).toBe(
        true,
      );
    });
  });
});

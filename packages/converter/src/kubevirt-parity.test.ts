// Whole conversions of VMIs that combine device kinds the way random admitted VMIs do, each checked
// against the rule KubeVirt v1.9.0's converter follows. Each test names the Go file (under KubeVirt's
// pkg/virt-launcher/virtwrap/converter/) and function; the domains whose shape this machine's libvirt
// schema knows are also checked with virt-xml-validate.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { convert } from './builder.js';
import { cpu } from './configurators/cpu.js';
import type { Domain, DomainDisk } from './domain/types.js';
import { ConverterContext } from './gen/virtlauncher/converter/v1/converter.js';
import { run, vmi, vmiJson } from './testing/fixture.js';
import { parseVmi } from './vmi/parse.js';
import { toDomainXml } from './xml/domain-xml.js';

const work = mkdtempSync(join(tmpdir(), 'vlt-converter-parity-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

interface Converted {
  domain: Domain;
  xml: string;
}

function converted(
  domain: Record<string, unknown>,
  spec: Record<string, unknown> = {},
  ctx: Partial<ConverterContext> = {},
  status?: Record<string, unknown>,
): Converted {
  const text = status
    ? JSON.stringify({ ...JSON.parse(vmiJson('parity', domain, spec)), status })
    : vmiJson('parity', domain, spec);
  const context = ConverterContext.fromPartial({ architecture: 'amd64', allowEmulation: true, ...ctx });
  const out = convert(parseVmi(text), context);
  return { domain: out, xml: toDomainXml(out) };
}

async function validation(name: string, xml: string): Promise<string> {
  const path = join(work, `${name}.xml`);
  writeFileSync(path, xml);
  const r = await execa('virt-xml-validate', [path, 'domain'], { reject: false });
  return r.stdout + r.stderr;
}

function diskNamed(domain: Domain, name: string): DomainDisk {
  const disk = domain.devices.disks.find((d) => d.alias?.name === `ua-${name}`);
  if (!disk) throw new Error(`no disk ${name} in the domain`);
  return disk;
}

const pvc = (name: string) => ({ name, persistentVolumeClaim: { claimName: `claim-${name}` } });

describe('disk, LUN and CD-ROM settings by device kind', () => {
  // converter.go, Convert_v1_Disk_To_api_Disk: assignDiskToSCSIController runs in the Disk and the LUN
  // branch only; the CDRom branch names the target on the SCSI bus but leaves the address to libvirt.
  it('a SCSI CD-ROM beside a SCSI disk and a SCSI LUN gets no drive address; the disk and LUN do', async () => {
    const { domain, xml } = converted(
      {
        devices: {
          disks: [
            { name: 'cd', cdrom: { bus: 'scsi' } },
            { name: 'data', disk: { bus: 'scsi' } },
            { name: 'lun', lun: { bus: 'scsi' } },
          ],
        },
      },
      { volumes: [pvc('cd'), pvc('data'), pvc('lun')] },
      // libvirt takes a LUN only on a block device.
      { isBlockPvc: { lun: true } },
    );
    expect(diskNamed(domain, 'cd')).toMatchObject({ target: { bus: 'scsi', dev: 'sda' } });
    expect(diskNamed(domain, 'cd').address).toBeUndefined();
    expect(diskNamed(domain, 'data').address).toEqual({ type: 'drive', controller: '0', bus: '0', unit: '1' });
    expect(diskNamed(domain, 'lun').address).toEqual({ type: 'drive', controller: '0', bus: '0', unit: '2' });
    expect(await validation('scsi-kinds', xml)).toContain('validates');
  });

  // converter.go, Convert_v1_Disk_To_api_Disk: only the Disk branch copies the serial.
  it('a serial is kept on a disk and dropped on a CD-ROM and a LUN', async () => {
    const { domain, xml } = converted(
      {
        devices: {
          disks: [
            { name: 'cd', cdrom: { bus: 'sata' }, serial: 'CD-SERIAL' },
            { name: 'lun', lun: { bus: 'scsi' }, serial: 'LUN-SERIAL' },
            { name: 'data', disk: { bus: 'virtio' }, serial: 'DISK-SERIAL' },
          ],
        },
      },
      { volumes: [pvc('cd'), pvc('lun'), pvc('data')] },
      { isBlockPvc: { lun: true } },
    );
    expect(diskNamed(domain, 'cd').serial).toBeUndefined();
    expect(diskNamed(domain, 'lun').serial).toBeUndefined();
    expect(diskNamed(domain, 'data').serial).toBe('DISK-SERIAL');
    expect(xml).not.toContain('CD-SERIAL');
    expect(xml).not.toContain('LUN-SERIAL');
    expect(await validation('serials', xml)).toContain('validates');
  });

  // converter.go, Convert_v1_Disk_To_api_Disk: the virtio model (transitional or not) is set in the Disk
  // branch only; a virtio LUN stays without one.
  it('a virtio LUN gets no model; a virtio disk beside it gets the virtio model', async () => {
    const { domain, xml } = converted(
      {
        devices: {
          disks: [
            { name: 'lun', lun: { bus: 'virtio' } },
            { name: 'data', disk: { bus: 'virtio' } },
          ],
        },
      },
      { volumes: [pvc('lun'), pvc('data')] },
      { isBlockPvc: { lun: true } },
    );
    expect(diskNamed(domain, 'lun').model).toBeUndefined();
    expect(diskNamed(domain, 'data').model).toBe('virtio-non-transitional');
    expect(await validation('virtio-lun', xml)).toContain('validates');
  });

  // converter.go, Convert_v1_Disk_To_api_Disk: shareable (with its cache none default and its refusal of
  // any other cache) is read in the Disk branch only; a CD-ROM or LUN keeps the cache it asks for.
  it('shareable applies to a disk only: a shareable CD-ROM with cache writeback converts, unshared', async () => {
    const { domain, xml } = converted(
      {
        devices: {
          disks: [
            { name: 'cd', cdrom: { bus: 'sata' }, shareable: true, cache: 'writeback' },
            { name: 'cd2', cdrom: { bus: 'sata' }, shareable: true },
            { name: 'lun', lun: { bus: 'scsi' }, shareable: true },
            { name: 'data', disk: { bus: 'virtio' }, shareable: true },
          ],
        },
      },
      { volumes: [pvc('cd'), pvc('cd2'), pvc('lun'), pvc('data')] },
      { isBlockPvc: { lun: true } },
    );
    expect(diskNamed(domain, 'cd')).toMatchObject({ driver: { cache: 'writeback' } });
    for (const name of ['cd', 'cd2', 'lun']) expect(diskNamed(domain, name).shareable).toBeUndefined();
    expect(diskNamed(domain, 'cd2').driver.cache).toBeUndefined();
    expect(diskNamed(domain, 'lun').driver.cache).toBeUndefined();
    expect(diskNamed(domain, 'data')).toMatchObject({ shareable: true, driver: { cache: 'none' } });
    expect(await validation('shareable', xml)).toContain('validates');
  });

  it('a shareable disk with cache writeback is still refused, naming the field', () => {
    expect(() =>
      converted(
        { devices: { disks: [{ name: 'data', disk: { bus: 'virtio' }, shareable: true, cache: 'writeback' }] } },
        { volumes: [pvc('data')] },
      ),
    ).toThrow('spec.domain.devices.disks[0].cache');
  });
});

describe('the USB controller', () => {
  const usbModel = (domain: Domain) => domain.devices.controllers.find((c) => c.type === 'usb')?.model;

  // arch/amd64.go, converterAMD64.IsUSBNeeded: of the disks only a Disk on the usb bus needs the
  // controller; a USB CD-ROM or LUN leaves it at model none.
  it.each([
    ['a USB CD-ROM alone', { name: 'd', cdrom: { bus: 'usb' } }, 'none'],
    ['a USB LUN alone', { name: 'd', lun: { bus: 'usb' } }, 'none'],
    ['a USB disk', { name: 'd', disk: { bus: 'usb' } }, 'qemu-xhci'],
  ])('%s (%j): usb controller model %s', async (label, disk, model) => {
    const { domain, xml } = converted(
      { devices: { disks: [disk] } },
      { volumes: [pvc('d')] },
      { isBlockPvc: { d: true } },
    );
    expect(usbModel(domain)).toBe(model);
    expect(await validation(`usb-${label.replaceAll(' ', '-')}`, xml)).toContain('validates');
  });
});

describe('IOThreads with ioThreadsPolicy auto', () => {
  const virtioDisks = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `d${i}`, disk: { bus: 'virtio' } }));
  const volumes = (n: number) => Array.from({ length: n }, (_, i) => pvc(`d${i}`));

  // iothreads/iothreads.go, getThreadPoolLimit: the auto pool is twice the CPU request, else the CPU limit,
  // else twice one CPU; the vCPU count of the topology plays no part.
  it('4 vCPUs and no CPU request or limit: a pool of 2, shared round-robin by 6 virtio disks', async () => {
    const { domain, xml } = converted(
      { ioThreadsPolicy: 'auto', cpu: { cores: 4 }, devices: { disks: virtioDisks(6) } },
      { volumes: volumes(6) },
    );
    expect(domain.vcpu).toBe(4);
    expect(domain.iothreads).toBe(2);
    expect(domain.devices.disks.map((d) => d.driver.iothread)).toEqual([1, 2, 1, 2, 1, 2]);
    expect(await validation('iothreads-auto', xml)).toContain('validates');
  });

  // converter.go, Convert_v1_VirtualMachineInstance_To_api_Domain: assignDiskIOThread runs for every disk
  // of the spec, also one left out of the domain (a hot-plugged volume not mounted yet), so the disks after
  // it take the ids they would have had with it.
  it('a hot-plugged virtio disk not yet mounted still takes its turn of the round-robin', () => {
    const status = (name: string, phase: string) => ({ name, target: '', phase });
    const { domain } = converted(
      {
        ioThreadsPolicy: 'auto',
        resources: { requests: { memory: '64Mi', cpu: '2' } },
        devices: { disks: virtioDisks(3) },
      },
      { volumes: volumes(3) },
      {
        permanentVolumes: { d0: status('d0', ''), d2: status('d2', '') },
        hotplugVolumes: { d1: status('d1', 'Pending') },
      },
    );
    expect(domain.iothreads).toBe(3);
    expect(domain.devices.disks.map((d) => [d.alias?.name, d.driver.iothread])).toEqual([
      ['ua-d0', 1],
      ['ua-d2', 3],
    ]);
  });

  it('a CPU limit of 3 and no request: a pool of 6', () => {
    const { domain } = converted(
      {
        ioThreadsPolicy: 'auto',
        resources: { requests: { memory: '64Mi' }, limits: { memory: '64Mi', cpu: '3' } },
        devices: { disks: virtioDisks(8) },
      },
      { volumes: volumes(8) },
    );
    expect(domain.iothreads).toBe(6);
  });
});

describe('a passt NIC', () => {
  const passtNic = (iface: Record<string, unknown>) =>
    converted(
      { devices: { interfaces: [{ name: 'default', passtBinding: {}, ...iface }] } },
      { networks: [{ name: 'default', pod: {} }] },
      { libvirtVersion: '11.1.0' },
      { interfaces: [{ name: 'default', podInterfaceName: 'eth0' }] },
    ).domain.devices.interfaces[0]!;

  // network/configurator.go, configureInterface: boot order, ROM off and link state are tap-binding options
  // (tapBindingOptions); the passt branch (passtBindingOptions) writes type, source, back end and ports only.
  // libvirt 9.0's schema here has no passt back end, so these domains are not schema-checked.
  it.each([{ bootOrder: 1 }, {}, { bootOrder: 2, state: 'down' }])(
    'with %j: no boot order, no <rom>, no link state',
    (iface) => {
      const nic = passtNic(iface);
      expect(nic).toMatchObject({ type: 'vhostuser', backend: { type: 'passt' } });
      expect(nic.bootOrder).toBeUndefined();
      expect(nic.rom).toBeUndefined();
      expect(nic.link).toBeUndefined();
    },
  );
});

describe('CPU features', () => {
  const features = [{ name: 'pcid' }, { name: 'vmx', policy: 'disable' }];

  // compute/cpu.go, CPUDomainConfigurator.Configure: each VMI feature is copied with its policy as given,
  // so a feature without one has none (and mpx is added disabled for a custom model).
  it('the CPU configurator copies the policy as given: none where the VMI gives none', () => {
    const domain = run(cpu, vmi({ cpu: { model: 'Haswell', features } }));
    expect(domain.cpu?.features).toEqual([
      { name: 'pcid', policy: undefined },
      { name: 'vmx', policy: 'disable' },
      { name: 'mpx', policy: 'disable' },
    ]);
  });

  // libvirt's schema (cputypes.rng, cpuFeature) requires the policy, and libvirtd stores `require` for a
  // feature without one: the whole conversion writes that default (libvirt-compat, package README).
  it('the whole domain writes libvirt’s default, require, and validates', async () => {
    const { xml } = converted({ cpu: { model: 'Haswell', features } });
    expect(xml).toContain('<feature name="pcid" policy="require"/>');
    expect(xml).toContain('<feature name="vmx" policy="disable"/>');
    expect(await validation('cpu-features', xml)).toContain('validates');
  });
});

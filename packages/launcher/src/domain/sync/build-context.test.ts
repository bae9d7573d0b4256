import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../../errors.js';
import { parseFlags } from '../../flags.js';
import { resolvePaths } from '../../paths.js';
import { parseVmiRequest } from '../../vmi.js';
import { blockCandidates, buildContext, containerDiskVolumes, interfacePlan } from './build-context.js';
import type { HostFacts } from './build-context.js';
import type { ImageFacts } from '../../adapters/ephemeral-disk.js';
import { convertVmi } from '../../adapters/converter.js';
import { testHostFacts } from '../../testing/host-facts.js';

const image = (over: Partial<ImageFacts>): ImageFacts => ({
  path: '/x',
  format: 'raw',
  virtualSize: 1n,
  actualSize: undefined,
  backingFile: undefined,
  backingFormat: undefined,
  dataFile: undefined,
  ...over,
});

const flags = parseFlags(['--run-root', '/tmp/vlt-build-context', '--uid', 'uid-1'], {});
const paths = resolvePaths(flags);

function vmiOf(spec: Record<string, unknown>, annotations: Record<string, string> = {}, status = {}) {
  const metadata = { name: 'vm1', namespace: 'default', uid: 'uid-1', annotations };
  const vmi = { apiVersion: 'kubevirt.io/v1', kind: 'VirtualMachineInstance', metadata, spec, status };
  return parseVmiRequest(Buffer.from(JSON.stringify(vmi)));
}

const volumesSpec = {
  domain: {
    devices: {
      disks: [{ name: 'cd' }, { name: 'pvc' }, { name: 'cd2' }, { name: 'dv' }],
      interfaces: [
        { name: 'default', masquerade: {}, macAddress: '02:00:00:aa:bb:cc' },
        { name: 'sec', bridge: {} },
      ],
    },
  },
  volumes: [
    { name: 'cd', containerDisk: { image: 'a' } },
    { name: 'pvc', persistentVolumeClaim: { claimName: 'c' } },
    { name: 'cd2', containerDisk: { image: 'b' } },
    { name: 'dv', dataVolume: { name: 'd' } },
  ],
  networks: [
    { name: 'default', pod: {} },
    { name: 'sec', multus: { networkName: 'n' } },
  ],
};

const facts = (over: Partial<HostFacts> = {}): HostFacts =>
  testHostFacts({
    blockVolumes: { pvc: true, dv: false },
    tap0Mtu: 1450,
    containerDisks: {
      cd: image({ path: '/x/disk_0.img', format: 'qcow2', virtualSize: 1024n, actualSize: 512n }),
      cd2: image({ path: '/x/disk_2.img', format: 'raw', virtualSize: 2048n }),
    },
    ...over,
  });

describe('what the host probe must look at', () => {
  it('block candidates are PVCs, ephemeral volumes and data volumes, container disks keep their index', () => {
    const vmi = vmiOf(volumesSpec);
    expect(blockCandidates(vmi)).toEqual(['pvc', 'dv']);
    expect(containerDiskVolumes(vmi)).toEqual([
      { name: 'cd', index: 0 },
      { name: 'cd2', index: 2 },
    ]);
  });
});

describe('buildContext (pure: facts and options in, converter context out)', () => {
  it('maps the facts: Go architecture names, block volumes, container disk sizes, libvirt version, paths', () => {
    const ctx = buildContext(facts(), vmiOf(volumesSpec), undefined, flags, paths);
    expect(ctx.architecture).toBe('amd64');
    expect(ctx.isBlockPvc).toEqual({ pvc: true, dv: false });
    expect(ctx.isBlockDv).toEqual({ pvc: true, dv: false });
    expect(ctx.disksInfo).toEqual({
      cd: { format: 'qcow2', backingFilename: '', actualSize: 512n, virtualSize: 1024n },
      cd2: { format: 'raw', backingFilename: '', actualSize: 0n, virtualSize: 2048n },
    });
    expect(ctx.libvirtVersion).toBe('9.0.0');
    expect(ctx.paths?.containerDiskDir).toBe(paths.containerDiskDir);
    expect(ctx.paths?.ephemeralOverlayDir).toBe(paths.diskDataDir);
    expect(ctx.smbios).toMatchObject({ manufacturer: 'KubeVirt', product: 'None', family: 'KubeVirt' });
    expect(ctx.freePageReporting).toBe(true);
    expect(ctx.serialConsoleLog).toBe(true);
  });

  it('the launcher verbosity and the vsock namespace mode reach the domain: firmware log and CID 3', async () => {
    const spec = { domain: { devices: {}, resources: { requests: { memory: '64Mi' } } } };
    const vmi = vmiOf(spec, {}, { VSOCKCID: 1234 });
    const debug = buildContext(
      facts({ launcherLogVerbosity: 6, vsockLocalNamespace: true, hypervisorDeviceAvailable: true }),
      vmi,
      undefined,
      flags,
      paths,
    );
    expect(debug).toMatchObject({ launcherLogVerbosity: 6, vsockLocalNamespace: true });
    const xml = (await convertVmi(vmi.raw, debug)).domainXml;
    expect(xml).toContain(`<qemu:arg value="file,id=firmwarelog,path=${paths.privateDir}/QEMUSeaBiosDebugPipe"/>`);
    expect(xml).toContain('<qemu:arg value="isa-debugcon,iobase=0x402,chardev=firmwarelog"/>');
    expect(xml).toMatch(/<vsock model="virtio-non-transitional">\s*<cid auto="no" address="3"\/>/);

    const plain = buildContext(facts({ hypervisorDeviceAvailable: true }), vmi, undefined, flags, paths);
    expect(plain).toMatchObject({ launcherLogVerbosity: undefined, vsockLocalNamespace: false });
    const plainXml = (await convertVmi(vmi.raw, plain)).domainXml;
    expect(plainXml).not.toContain('firmwarelog');
    expect(plainXml).toMatch(/<cid auto="no" address="1234"\/>/);
  });

  it('an unknown Node architecture passes through unchanged', () => {
    expect(buildContext(facts({ nodeArch: 'mips' }), vmiOf(volumesSpec), undefined, flags, paths).architecture).toBe(
      'mips',
    );
  });

  it('emulation comes only from the flag, never from a missing device', () => {
    const ctx = buildContext(facts({ hypervisorDeviceAvailable: false }), vmiOf(volumesSpec), undefined, flags, paths);
    expect(ctx).toMatchObject({ allowEmulation: false, hypervisorDeviceAvailable: false });
    const allowed = { ...flags, allowEmulation: true };
    expect(buildContext(facts(), vmiOf(volumesSpec), undefined, allowed, paths).allowEmulation).toBe(true);
  });

  it('refuses a container disk with a backing file or an unsupported format, naming the volume', () => {
    const backed = facts({
      containerDisks: { cd: image({ path: '/x', format: 'qcow2', virtualSize: 1n, backingFile: '/etc/shadow' }) },
    });
    const error = (() => {
      try {
        return buildContext(backed, vmiOf(volumesSpec), undefined, flags, paths);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect((error as Error).message).toBe('container disk cd: unsupported image format qcow2 with a backing file');
    const vmdk = facts({ containerDisks: { cd2: image({ path: '/x', format: 'vmdk', virtualSize: 1n }) } });
    expect(() => buildContext(vmdk, vmiOf(volumesSpec), undefined, flags, paths)).toThrow(
      'container disk cd2: unsupported image format vmdk',
    );
  });

  it('options and annotations: cluster config, SMBIOS, balloon period, preallocated volumes', () => {
    const vmi = vmiOf(volumesSpec, { 'kubevirt.io/free-page-reporting-disabled': 'true' });
    const smbios = { manufacturer: 'M', product: 'P', version: 'V', sku: 'S', family: 'F' };
    const ctx = buildContext(
      facts(),
      vmi,
      {
        VirtualMachineSMBios: smbios,
        MemBalloonStatsPeriod: 10,
        PreallocatedVolumes: ['pvc'],
        clusterConfig: { BochsDisplayForEFIGuests: true, SerialConsoleLogDisabled: true },
      } as Parameters<typeof buildContext>[2],
      flags,
      paths,
    );
    expect(ctx).toMatchObject({
      smbios,
      memBalloonStatsPeriod: 10,
      volumesDiscardIgnore: ['pvc'],
      freePageReporting: false,
      bochsForEfiGuests: true,
      serialConsoleLog: false,
    });
  });
});

describe('interfacePlan', () => {
  it('masquerade and bridge NICs default to a tap; only pod-network NICs plug into tap0 with its MTU', () => {
    expect(interfacePlan(vmiOf(volumesSpec), undefined, 1450)).toEqual({
      domainAttachmentByInterfaceName: { default: 'tap', sec: 'tap' },
      podInterfaces: { default: { tapName: 'tap0', mac: '02:00:00:aa:bb:cc', mtu: 1450 } },
    });
  });

  it('without tap0 no NIC is plugged; an attachment from the options wins over the default', () => {
    const options = { interfaceDomainAttachment: { sec: 'managedTap' } } as unknown as Parameters<
      typeof interfacePlan
    >[1];
    expect(interfacePlan(vmiOf(volumesSpec), options, undefined)).toEqual({
      domainAttachmentByInterfaceName: { default: 'tap', sec: 'managedTap' },
      podInterfaces: {},
    });
  });
});

// One test per KubeVirt API default: the VMI shape that triggers it, the field the default fills and the
// domain element it yields (where it yields one).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { convert } from '../builder.js';
import { ConverterContext } from '../gen/virtlauncher/converter/v1/converter.js';
import { toDomainXml } from '../xml/domain-xml.js';
import { parseVmi } from './parse.js';
import type { VirtualMachineInstance } from './types.js';
import { FIRMWARE_UUID_NAMESPACE, uuidV5 } from './uuid.js';

const demo = readFileSync(new URL('../../../../examples/vmi-demo.yaml', import.meta.url), 'utf8');
const vmA = readFileSync(new URL('../../examples/vm-a.yaml', import.meta.url), 'utf8');

interface Shape {
  /** More `spec.domain` lines (YAML, indented 4). */
  domain?: string;
  /** More `spec` lines (indented 2). */
  spec?: string;
  name?: string;
  /** `spec.domain.devices` in flow style. */
  devices?: string;
  /** `spec.domain.resources` in flow style. */
  resources?: string;
}

/** A VMI with 64Mi of memory, no pod network and no graphics unless the shape says otherwise. */
function yaml(domain = '', spec = '', name = 'x'): string {
  return vmiText({ domain, spec, name });
}

function vmiText(shape: Shape): string {
  return [
    'apiVersion: kubevirt.io/v1',
    'kind: VirtualMachineInstance',
    `metadata: {name: ${shape.name ?? 'x'}, namespace: ns}`,
    'spec:',
    '  domain:',
    `    resources: ${shape.resources ?? '{requests: {memory: 64Mi}}'}`,
    `    devices: ${shape.devices ?? '{autoattachPodInterface: false, autoattachGraphicsDevice: false}'}`,
    shape.domain,
    shape.spec,
  ]
    .filter(Boolean)
    .join('\n');
}

function parsed(text: string, architecture = 'amd64'): VirtualMachineInstance {
  return parseVmi(text, { architecture });
}

function xml(text: string, architecture = 'amd64'): string {
  const vmi = parsed(text, architecture);
  const context = ConverterContext.fromPartial({
    architecture,
    disksInfo: { rootdisk: { format: 'raw' } },
    allowEmulation: true,
  });
  return toDomainXml(convert(vmi, context));
}

/** The text of one element (first match), e.g. section(x, 'features'). */
function section(doc: string, name: string): string {
  const match = new RegExp(`<${name}[ >][\\s\\S]*?</${name}>|<${name}[^>]*/>`).exec(doc);
  return match?.[0] ?? '';
}

describe('API defaults: features', () => {
  it('no features object: one is made and ACPI is on (<acpi/>), vmport off on amd64', () => {
    const vmi = parsed(yaml(''));
    expect(vmi.spec.domain.features?.acpi).toEqual({ enabled: true });
    const features = section(xml(yaml('')), 'features');
    expect(features).toContain('<acpi/>');
    expect(features).toContain('<vmport state="off"/>');
  });

  it('the demo VMI (no features block) converts with <features><acpi/>', () => {
    expect(section(xml(demo), 'features')).toMatch(/^<features>\s*<acpi\/>/);
  });

  it('features.acpi.enabled: false: no <acpi/>', () => {
    const doc = xml(yaml('    features: {acpi: {enabled: false}}'));
    expect(section(doc, 'features')).not.toContain('acpi');
  });

  it('s390x: ACPI off by default, with or without a features object; on when asked', () => {
    expect(parsed(yaml(''), 's390x').spec.domain.features?.acpi).toEqual({ enabled: false });
    expect(xml(yaml(''), 's390x')).not.toContain('<acpi');
    expect(xml(yaml('    features: {acpi: {}}'), 's390x')).not.toContain('<acpi');
    expect(xml(yaml('    features: {acpi: {enabled: true}}'), 's390x')).toContain('<acpi/>');
  });

  it('apic, smm and pvspinlock listed without a value are on', () => {
    const vmi = parsed(yaml('    features: {apic: {}, smm: {}, pvspinlock: {}}'));
    expect(vmi.spec.domain.features).toMatchObject({
      apic: { enabled: true },
      smm: { enabled: true },
      pvspinlock: { enabled: true },
    });
    const features = section(xml(yaml('    features: {apic: {}, smm: {}, pvspinlock: {}}')), 'features');
    expect(features).toContain('<apic/>');
    expect(features).toContain('<smm/>');
    expect(features).toContain('<pvspinlock state="on"/>');
  });

  it('hyperv spinlocks without retries: on with 4096; switched off: no retries', () => {
    const on = xml(yaml('    features: {hyperv: {spinlocks: {}, relaxed: {}}}'));
    expect(on).toContain('<spinlocks state="on" retries="4096"/>');
    expect(on).toContain('<relaxed state="on"/>');
    const off = parsed(yaml('    features: {hyperv: {spinlocks: {enabled: false}}}'));
    expect(off.spec.domain.features?.hyperv?.spinlocks).toEqual({ enabled: false });
  });

  it('hyperv synictimer needs synic needs vpindex: both switched on; direct defaults on', () => {
    const vmi = parsed(yaml('    features: {hyperv: {synictimer: {direct: {}}}}'));
    expect(vmi.spec.domain.features?.hyperv).toMatchObject({
      synictimer: { enabled: true, direct: { enabled: true } },
      synic: { enabled: true },
      vpindex: { enabled: true },
    });
    const hyperv = section(xml(yaml('    features: {hyperv: {synictimer: {direct: {}}}}')), 'hyperv');
    expect(hyperv).toContain('<vpindex state="on"/>');
    expect(hyperv).toContain('<synic state="on"/>');
    expect(hyperv).toMatch(/<stimer state="on">\s*<direct state="on"\/>/);
  });

  it('hyperv evmcs switches vapic on and requires the vmx CPU feature', () => {
    const doc = xml(yaml('    features: {hyperv: {evmcs: {}}}'));
    expect(section(doc, 'hyperv')).toContain('<vapic state="on"/>');
    expect(section(doc, 'cpu')).toContain('<feature name="vmx" policy="require"/>');
  });

  it('a requirement switched off explicitly stays off (validation, not defaults, decides)', () => {
    const vmi = parsed(yaml('    features: {hyperv: {ipi: {}, vpindex: {enabled: false}}}'));
    expect(vmi.spec.domain.features?.hyperv?.vpindex).toEqual({ enabled: false });
  });
});

describe('API defaults: firmware, clock, machine, CPU', () => {
  it('no firmware: a UUID derived from the name (UUIDv5 in KubeVirt’s firmware namespace) in <uuid>', () => {
    const expected = uuidV5(FIRMWARE_UUID_NAMESPACE, 'named-vm');
    expect(parsed(yaml('', '', 'named-vm')).spec.domain.firmware?.uuid).toBe(expected);
    expect(xml(yaml('', '', 'named-vm'))).toContain(`<entry name="uuid">${expected}</entry>`);
  });

  it('a timer listed without `present` is present', () => {
    const text = yaml('    clock: {utc: {}, timer: {hpet: {}, rtc: {present: false}}}');
    expect(parsed(text).spec.domain.clock?.timer).toEqual({ hpet: { present: true }, rtc: { present: false } });
    const clock = section(xml(text), 'clock');
    expect(clock).toContain('<timer name="hpet" present="yes"/>');
    expect(clock).toContain('<timer name="rtc" present="no"/>');
  });

  it.each([
    ['amd64', 'x86_64', 'q35', 'host-model'],
    ['arm64', 'aarch64', 'virt', 'host-passthrough'],
    ['s390x', 's390x', 's390-ccw-virtio', 'host-model'],
  ])('%s: machine type and CPU model', (arch, libvirtArch, machine, mode) => {
    const vmi = parsed(yaml(''), arch);
    expect(vmi.spec.domain.machine?.type).toBe(machine);
    expect(vmi.spec.domain.cpu?.model).toBe(mode);
    const doc = xml(yaml(''), arch);
    expect(doc).toContain(`<type arch="${libvirtArch}" machine="${machine}">hvm</type>`);
    expect(doc).toContain(`<cpu mode="${mode}">`);
  });

  it('arm64 without a bootloader: UEFI without secure boot', () => {
    expect(parsed(yaml(''), 'arm64').spec.domain.firmware?.bootloader).toEqual({ efi: { secureBoot: false } });
    const os = section(xml(yaml(''), 'arm64'), 'os');
    expect(os).toContain('firmware="efi"');
    expect(os).not.toContain('secure-boot');
  });

  it('a CPU limit without a request: the request equals the limit, sockets from it', () => {
    const text = vmiText({ resources: '{requests: {memory: 64Mi}, limits: {cpu: 1500m}}' });
    const vmi = parsed(text);
    expect(vmi.spec.domain.resources?.requests?.cpu).toBe('1500m');
    expect(vmi.spec.domain.cpu).toMatchObject({ sockets: 2, cores: 1, threads: 1 });
    expect(xml(text)).toContain('<topology sockets="2" cores="1" threads="1"/>');
  });

  it('guest memory from the limit when the request is zero, else from one hugepage', () => {
    const limit = vmiText({ resources: '{requests: {memory: "0"}, limits: {memory: 96Mi}}' });
    expect(parsed(limit).spec.domain.memory?.guest).toBe('96Mi');
    expect(xml(limit)).toContain(`<memory unit="b">${96 * 1024 * 1024}</memory>`);
    const pages = vmiText({ resources: '{}', domain: '    memory: {hugepages: {pageSize: 2Mi}}' });
    expect(parsed(pages).spec.domain.memory?.guest).toBe('2Mi');
  });
});

describe('API defaults: devices', () => {
  const disks = (extra: string) =>
    vmiText({
      devices: `{autoattachPodInterface: false, disks: [${extra}]}`,
      spec: '  volumes: [{name: d, emptyDisk: {capacity: 1Gi}}]',
    });

  it.each([
    ['amd64', 'sata', 'sda'],
    ['arm64', 'virtio', 'vda'],
    ['s390x', 'virtio', 'vda'],
  ])('%s: a disk with no device becomes a disk on the %s bus', (arch, bus, dev) => {
    expect(parsed(disks('{name: d}'), arch).spec.domain.devices.disks?.[0]).toEqual({ name: 'd', disk: { bus } });
    expect(xml(disks('{name: d}'), arch)).toContain(`<target bus="${bus}" dev="${dev}"/>`);
  });

  it('a volume without a disk gets one', () => {
    const text = yaml('', '  volumes: [{name: d, emptyDisk: {capacity: 1Gi}}]');
    expect(parsed(text).spec.domain.devices.disks).toEqual([{ name: 'd', disk: { bus: 'sata' } }]);
    expect(xml(text)).toContain('<alias name="ua-d"/>');
  });

  it('a volume used by a filesystem or as a memory dump target gets no disk', () => {
    const text = vmiText({
      devices:
        '{autoattachPodInterface: false, autoattachGraphicsDevice: false, filesystems: [{name: fs, virtiofs: {}}]}',
      spec: '  volumes: [{name: fs, persistentVolumeClaim: {claimName: share}}, {name: dump, memoryDump: {claimName: d}}]',
    });
    expect(parsed(text).spec.domain.devices.disks).toEqual([]);
    const out = xml(text);
    expect(out).not.toContain('<disk');
    expect(out).toContain('<target dir="fs"/>');
  });

  it('a CD-ROM is read-only with its tray closed', () => {
    const text = vmiText({ devices: '{autoattachPodInterface: false, disks: [{name: c, cdrom: {}}]}' });
    expect(parsed(text).spec.domain.devices.disks?.[0]?.cdrom).toEqual({ bus: 'sata', readonly: true, tray: 'closed' });
    const disk = section(xml(text), 'disk');
    expect(disk).toContain('<readonly/>');
    expect(disk).toContain('tray="closed"');
  });

  it('blockSize.matchVolume listed without a value is on', () => {
    const vmi = parsed(disks('{name: d, blockSize: {matchVolume: {}}}'));
    expect(vmi.spec.domain.devices.disks?.[0]?.blockSize).toEqual({ matchVolume: { enabled: true } });
  });

  it('an input without type and bus is a USB tablet', () => {
    const text = vmiText({ devices: '{autoattachPodInterface: false, inputs: [{name: t}]}' });
    expect(parsed(text).spec.domain.devices.inputs).toEqual([{ name: 't', type: 'tablet', bus: 'usb' }]);
    const doc = xml(text);
    expect(doc).toMatch(/<input type="tablet" bus="usb">\s*<alias name="ua-t"\/>/);
    // A USB input needs a USB controller: the default one is no longer "none".
    expect(doc).toContain('<controller type="usb" index="0" model="qemu-xhci"/>');
  });

  it.each([
    ['amd64', 'i6300esb'],
    ['s390x', 'diag288'],
  ])('%s: a watchdog without a model gets %s with action reset', (arch, model) => {
    const text = vmiText({ devices: '{autoattachPodInterface: false, watchdog: {name: w}}' });
    expect(parsed(text, arch).spec.domain.devices.watchdog).toEqual({ name: 'w', [model]: { action: 'reset' } });
    expect(xml(text, arch)).toContain(`<watchdog model="${model}" action="reset">`);
  });

  it('no interfaces and no networks: the pod network with masquerade', () => {
    const text = vmiText({ devices: '{}' });
    expect(parsed(text).spec.networks).toEqual([{ name: 'default', pod: {} }]);
    expect(xml(text)).toContain('<alias name="ua-default"/>');
  });
});

describe('API defaults: probes and pull policies (no domain element)', () => {
  it('probe thresholds below 1 take Kubernetes’ defaults', () => {
    const text = yaml('', '  readinessProbe: {tcpSocket: {port: 80}, periodSeconds: 0}\n  livenessProbe: {exec: {}}');
    const vmi = parsed(text);
    expect(vmi.spec.readinessProbe).toEqual({
      tcpSocket: { port: 80 },
      timeoutSeconds: 1,
      periodSeconds: 10,
      successThreshold: 1,
      failureThreshold: 3,
    });
    expect(vmi.spec.livenessProbe).toMatchObject({ timeoutSeconds: 1, periodSeconds: 10 });
  });

  it.each([
    ['demo-disk', 'Always'],
    ['demo-disk:latest', 'Always'],
    ['demo-disk:1.0', 'IfNotPresent'],
    ['demo-disk@sha256:00', 'IfNotPresent'],
  ])('container disk %s is pulled %s', (image, policy) => {
    const text = yaml('', `  volumes: [{name: r, containerDisk: {image: "${image}"}}]`);
    expect(parsed(text).spec.volumes?.[0]?.containerDisk?.imagePullPolicy).toBe(policy);
  });
});

describe('API defaults are idempotent', () => {
  it.each([
    ['the demo VMI', demo, 'amd64'],
    ['VM A', vmA, 'amd64'],
    ['VM A on arm64', vmA, 'arm64'],
    ['VM A on s390x', vmA, 's390x'],
    [
      'hyperv and clock',
      yaml('    features: {hyperv: {evmcs: {}, synictimer: {}}}\n    clock: {timer: {kvm: {}}}'),
      'amd64',
    ],
  ])('%s: defaulting the defaulted VMI changes nothing', (_name, text, arch) => {
    const once = parsed(text, arch);
    expect(parsed(JSON.stringify(once), arch)).toEqual(once);
  });
});

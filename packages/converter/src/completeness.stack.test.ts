// The converter cases of issue 17 against the real libvirt here: each VMI converts to XML that
// libvirt's schema accepts (virt-xml-validate) and that a private libvirtd 9.0 defines, and the defined
// domain still holds what the VMI asked for.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { convert } from './builder.js';
import { hostContextDefaults, withDefaults } from './context/host.js';
import { ConverterContext } from './gen/virtlauncher/converter/v1/converter.js';
import { parseVmi } from './vmi/parse.js';
import { toDomainXml } from './xml/domain-xml.js';

const here = dirname(fileURLToPath(import.meta.url));
const privateRoot = join(resolve(here, '../../..'), 'tools/sandbox/private-root.sh');
const work = mkdtempSync(join(tmpdir(), 'vlt-converter-'));
let uri = '';

/** A 64Mi, 1-vCPU VMI without network or graphics; `domain` and `spec` add YAML lines. */
function vmiYaml(name: string, domain: string[], spec: string[] = []): string {
  return [
    'apiVersion: kubevirt.io/v1',
    'kind: VirtualMachineInstance',
    `metadata: {name: ${name}, namespace: ns}`,
    'spec:',
    '  domain:',
    '    resources: {requests: {memory: 64Mi}}',
    ...domain.map((l) => `    ${l}`),
    ...spec.map((l) => `  ${l}`),
  ].join('\n');
}

const noDevices = 'devices: {autoattachPodInterface: false, autoattachGraphicsDevice: false}';

/** Converts with this machine's facts (TCG without /dev/kvm, the installed libvirt's version). */
function domainXml(text: string, extra: Partial<ConverterContext> = {}): string {
  const vmi = parseVmi(text);
  const ctx = withDefaults(ConverterContext.fromPartial(extra), hostContextDefaults(vmi));
  return toDomainXml(convert(vmi, { ...ctx, ...extra }));
}

async function virsh(...args: string[]) {
  return execa('virsh', ['-c', uri, ...args], { reject: false });
}

/** Validates and defines the XML, returns libvirt's own view of it, then undefines the domain. */
async function defineAndDump(name: string, xml: string): Promise<string> {
  const path = join(work, `${name}.xml`);
  writeFileSync(path, xml);
  const validation = await execa('virt-xml-validate', [path, 'domain'], { reject: false });
  expect(validation.stderr + validation.stdout).toContain('validates');
  const defined = await virsh('define', path);
  expect(defined.stderr).toBe('');
  const live = (await virsh('dumpxml', `ns_${name}`)).stdout;
  await virsh('undefine', '--nvram', `ns_${name}`);
  return live;
}

beforeAll(async () => {
  const started = await execa(privateRoot, ['libvirtd', join(work, 'root')]);
  uri = started.stdout.trim().split('\n').pop() ?? '';
  await virsh('version');
}, 120_000);

afterAll(async () => {
  await execa(privateRoot, ['stop', join(work, 'root')], { reject: false });
  rmSync(work, { recursive: true, force: true });
});

describe('issue 17 converter cases in libvirtd 9.0', () => {
  it('EFI auto-selection keeps its variables at <nvram dir>/<vmi>_VARS.fd', async () => {
    const nvramDir = join(work, 'nvram');
    const text = vmiYaml('efi', [noDevices, 'firmware: {bootloader: {efi: {secureBoot: false}}}']);
    const live = await defineAndDump('efi', domainXml(text, { paths: { nvramDir } }));
    expect(live).toContain(`<nvram>${nvramDir}/efi_VARS.fd</nvram>`);
    expect(live).toMatch(/<os firmware='efi'>/);
  });

  it('the supplemental IOThread pool serves the virtio disks; a dedicated SCSI disk threads its controller', async () => {
    const text = vmiYaml(
      'pool',
      [
        'ioThreadsPolicy: supplementalPool',
        'ioThreads: {supplementalPoolThreadCount: 2}',
        'devices:',
        '  autoattachPodInterface: false',
        '  autoattachGraphicsDevice: false',
        '  disks: [{name: a, disk: {bus: virtio}}, {name: b, disk: {bus: virtio}}]',
      ],
      ['volumes: [{name: a, emptyDisk: {capacity: 1Gi}}, {name: b, emptyDisk: {capacity: 1Gi}}]'],
    );
    const live = await defineAndDump('pool', domainXml(text));
    expect(live).toContain('<iothreads>2</iothreads>');
    // libvirt 9.0 has no per-disk thread list: one pool thread each, round-robin (README).
    expect(live).toMatch(/<driver[^>]* iothread='1'[^>]*\/>\s*<source file='[^']*\/a\.qcow2'/);
    expect(live).toMatch(/<driver[^>]* iothread='2'[^>]*\/>\s*<source file='[^']*\/b\.qcow2'/);

    const scsi = vmiYaml(
      'scsi',
      [
        'ioThreadsPolicy: shared',
        'devices:',
        '  autoattachPodInterface: false',
        '  autoattachGraphicsDevice: false',
        '  disks: [{name: a, disk: {bus: virtio}}, {name: s, disk: {bus: scsi}, dedicatedIOThread: true}]',
      ],
      ['volumes: [{name: a, emptyDisk: {capacity: 1Gi}}, {name: s, emptyDisk: {capacity: 1Gi}}]'],
    );
    const scsiLive = await defineAndDump('scsi', domainXml(scsi));
    expect(scsiLive).toMatch(
      /<controller type='scsi' index='0' model='virtio-non-transitional'>\s*<driver queues='1' iothread='1'\/>/,
    );
  });

  it('a downwardMetrics disk keeps error_policy stop; a CD-ROM on a PVC unmaps', async () => {
    const text = vmiYaml(
      'disks',
      [
        'devices:',
        '  autoattachPodInterface: false',
        '  autoattachGraphicsDevice: false',
        '  disks: [{name: metrics, disk: {bus: virtio}}, {name: iso, cdrom: {bus: sata}}]',
      ],
      ['volumes: [{name: metrics, downwardMetrics: {}}, {name: iso, persistentVolumeClaim: {claimName: iso}}]'],
    );
    const live = await defineAndDump('disks', domainXml(text));
    expect(live).toMatch(/<driver name='qemu' type='raw' error_policy='stop'\/>\s*<source file='[^']*vhostmd0'/);
    expect(live).toMatch(
      /<disk type='file' device='cdrom'>\s*<driver name='qemu' type='raw' error_policy='stop' discard='unmap'\/>/,
    );
  });

  it('an RTC-only clock gains no adjustment; a required invtsc pins the TSC frequency', async () => {
    const text = vmiYaml(
      'clock',
      [noDevices, 'clock: {timer: {rtc: {tickPolicy: catchup}}}', 'cpu: {features: [{name: invtsc, policy: require}]}'],
      ['---'],
    ).replace('\n  ---', '\nstatus: {topologyHints: {tscFrequency: 2100000000}}');
    const live = await defineAndDump('clock', domainXml(text));
    expect(live).toMatch(
      /<clock offset='utc'>\s*<timer name='rtc' present='yes' tickpolicy='catchup'\/>\s*<timer name='tsc' frequency='2100000000'\/>/,
    );
    expect(live).not.toContain('adjustment');
  });

  it('kernelArgs with a kernel-boot container that brings only an initrd set <cmdline>', async () => {
    const text = vmiYaml('args', [
      noDevices,
      'firmware: {kernelBoot: {kernelArgs: "console=ttyS0", container: {image: k, initrdPath: /boot/initrd.img}}}',
    ]);
    const live = await defineAndDump('args', domainXml(text));
    expect(live).toContain('<cmdline>console=ttyS0</cmdline>');
    expect(live).toContain('/kernel-boot/initrd.img</initrd>');
  });

  it('dedicated CPUs are pinned from the context CPU set, the emulator thread isolated', async () => {
    const text = vmiYaml('pinned', [
      noDevices,
      'cpu: {cores: 1, dedicatedCpuPlacement: true, isolateEmulatorThread: true}',
    ]);
    const live = await defineAndDump('pinned', domainXml(text, { cpuSet: [1, 0] }));
    expect(live).toMatch(/<cputune>\s*<vcpupin vcpu='0' cpuset='0'\/>\s*<emulatorpin cpuset='1'\/>\s*<\/cputune>/);
  });

  it('a virtiofs volume and a memoryDump volume make no disk', async () => {
    const text = vmiYaml(
      'fs',
      [
        'devices: {autoattachPodInterface: false, autoattachGraphicsDevice: false, filesystems: [{name: share, virtiofs: {}}]}',
      ],
      [
        'volumes: [{name: share, persistentVolumeClaim: {claimName: share}}, {name: dump, memoryDump: {claimName: dump}}]',
      ],
    );
    const live = await defineAndDump('fs', domainXml(text));
    expect(live).not.toContain('<disk');
    expect(live).toContain("<target dir='share'/>");
  });

  it('passtBinding: KubeVirt’s vhost-user passt NIC is refused by libvirt 9.0, so conversion refuses it too', async () => {
    const text = vmiYaml(
      'passt',
      ['devices: {autoattachGraphicsDevice: false, interfaces: [{name: net, passtBinding: {}, ports: [{port: 80}]}]}'],
      ['networks: [{name: net, pod: {}}]', 'status: {interfaces: [{name: net, podInterfaceName: eth0}]}'],
    ).replace('\n  status:', '\nstatus:');
    // The shape KubeVirt writes (libvirt version left out: no adaptation) ...
    const kubevirtShape = domainXml(text, { libvirtVersion: '11.1.0' });
    expect(kubevirtShape).toMatch(/<interface type="vhostuser">\s*<source dev="eth0"\/>/);
    expect(kubevirtShape).toContain('<portForward proto="tcp">');
    expect(kubevirtShape).toContain('<access mode="shared"/>');
    const path = join(work, 'passt.xml');
    writeFileSync(path, kubevirtShape);
    const defined = await virsh('define', path);
    expect(defined.exitCode).not.toBe(0);
    // ... which is why a conversion for this libvirt names the interface instead of dropping the NIC.
    expect(() => domainXml(text)).toThrow(/passt binding of interface "net" needs libvirt 11\.1/);
  });

  it('realtime vCPUs with a passed-through NUMA node define: vcpusched, numatune and per-cell hugepages stay', async () => {
    const text = vmiYaml('realtime', [
      noDevices,
      'cpu: {cores: 2, dedicatedCpuPlacement: true, realtime: {mask: "^1"}, numa: {guestMappingPassthrough: {}}}',
      'memory: {hugepages: {pageSize: 2Mi}}',
    ]);
    const hostNumaNodes = [{ id: 0, cpus: [0, 1], distances: { 0: 10 }, cpuSiblings: [] }];
    // "^1" alone selects no vCPU (KubeVirt's mask rule), so no <vcpusched>; "0" selects vCPU 0.
    expect(domainXml(text, { cpuSet: [0, 1], hostNumaNodes })).not.toContain('<vcpusched');
    const live = await defineAndDump(
      'realtime',
      domainXml(text.replace('"^1"', '"0"'), { cpuSet: [0, 1], hostNumaNodes }),
    );
    expect(live).toMatch(/<vcpusched vcpus='0' scheduler='fifo' priority='1'\/>/);
    expect(live).toMatch(/<memnode cellid='0' mode='strict' nodeset='0'\/>/);
    expect(live).toMatch(/<page size='2048' unit='KiB' nodeset='0'\/>/);
    expect(live).toContain('<nosharepages/>');
    expect(live).toMatch(/<pmu state='off'\/>/);
  });

  it('a verbose launcher’s domain writes SeaBIOS’s debug port into <private dir>/QEMUSeaBiosDebugPipe', async () => {
    const privateDir = join(work, 'kubevirt-private');
    mkdirSync(privateDir, { recursive: true });
    const text = vmiYaml('seabios', [
      'devices: {autoattachPodInterface: false, autoattachGraphicsDevice: false, autoattachSerialConsole: false}',
    ]);
    const firmwareLog = join(privateDir, 'QEMUSeaBiosDebugPipe');
    // This domain is started: it chooses its hypervisor (TCG), so it boots on hosts without /dev/kvm, with a working
    // one, and with a /dev/kvm whose KVM cannot run a vCPU.
    const tcg = { hypervisorDeviceAvailable: false, allowEmulation: true };
    const xml = domainXml(text, { ...tcg, launcherLogVerbosity: 6, paths: { kubevirtPrivateDir: privateDir } });
    expect(domainXml(text, { launcherLogVerbosity: 5, paths: { kubevirtPrivateDir: privateDir } })).not.toContain(
      'firmwarelog',
    );
    const path = join(work, 'seabios.xml');
    writeFileSync(path, xml);
    const validation = await execa('virt-xml-validate', [path, 'domain'], { reject: false });
    expect(validation.stdout + validation.stderr).toContain('validates');
    expect((await virsh('define', path)).stderr).toBe('');
    try {
      expect(await virsh('dumpxml', 'ns_seabios').then((r) => r.stdout)).toContain(
        "<qemu:arg value='isa-debugcon,iobase=0x402,chardev=firmwarelog'/>",
      );
      expect((await virsh('start', 'ns_seabios')).stderr).toBe('');
      // SeaBIOS prints its banner on the debug port first thing; wait for it (TCG on a busy host is slow).
      let log = '';
      for (let i = 0; i < 300 && !log.includes('SeaBIOS (version'); i++) {
        await new Promise((r) => setTimeout(r, 200));
        log = existsSync(firmwareLog) ? readFileSync(firmwareLog, 'utf8') : '';
      }
      expect(log).toContain('SeaBIOS (version');
    } finally {
      await virsh('destroy', 'ns_seabios');
      await virsh('undefine', 'ns_seabios');
    }
  }, 120_000);

  it('a pod in a local vsock namespace gives the guest CID 3, whatever status.VSOCKCID says', async () => {
    const text = vmiYaml('vsock', [noDevices], ['---']).replace('\n  ---', '\nstatus: {VSOCKCID: 1234}');
    expect(domainXml(text)).toMatch(/<cid auto="no" address="1234"\/>/);
    const live = await defineAndDump('vsock', domainXml(text, { vsockLocalNamespace: true }));
    expect(live).toMatch(/<vsock model='virtio-non-transitional'>\s*<cid auto='no' address='3'\/>/);
  });

  it('a SEV domain passes libvirt’s schema; this QEMU (no SEV) is why libvirtd refuses to define it', async () => {
    const text = vmiYaml('sev', [noDevices, 'launchSecurity: {sev: {policy: {encryptedState: true}}}']);
    const xml = domainXml(text);
    expect(xml).toMatch(/<launchSecurity type="sev">\s*<policy>0x5<\/policy>/);
    const path = join(work, 'sev.xml');
    writeFileSync(path, xml);
    const validation = await execa('virt-xml-validate', [path, 'domain'], { reject: false });
    expect(validation.stdout + validation.stderr).toContain('validates');
    const defined = await virsh('define', path);
    expect(defined.stderr).toContain('SEV launch security is not supported with this QEMU binary');
  });
});

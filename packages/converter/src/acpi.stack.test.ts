// ACPI end to end: the demo VMI (examples/vmi-demo.yaml, no features block) converts to a domain that
// libvirtd 9.0 defines with <acpi/>, and the demo guest (tools/demo-guest) booted from that domain under
// TCG powers itself off when libvirt presses the ACPI power button (virsh shutdown: ShutdownVirtualMachine's
// path). A private libvirtd (tools/sandbox/private-root.sh) holds the domain; nothing touches the host's.
import { execa } from 'execa';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { convert } from './builder.js';
import { ConverterContext } from './gen/virtlauncher/converter/v1/converter.js';
import { parseVmi } from './vmi/parse.js';
import { toDomainXml } from './xml/domain-xml.js';

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(here, '../../..');
const privateRoot = join(repoRoot, 'tools/sandbox/private-root.sh');
const demoText = readFileSync(join(repoRoot, 'examples/vmi-demo.yaml'), 'utf8');
// Bounds for a TCG guest on two cores shared with other suites: timeouts, never assertions.
const BOOT_BOUND_MS = 180_000;
const POWER_OFF_BOUND_MS = 60_000;

const work = mkdtempSync(join(tmpdir(), 'vlt-converter-acpi-'));
const root = join(work, 'root');
// Under the private root, so that its `stop` also finds any QEMU started from these files.
const files = join(root, 'tmp', 'guest');
let uri = '';

async function virsh(...args: string[]) {
  return execa('virsh', ['-c', uri, ...args], { reject: false });
}

/** The demo's context, as the launcher would give it, with every path under `files` and TCG chosen. */
function demoContext(): ConverterContext {
  return ConverterContext.fromPartial({
    architecture: 'amd64',
    // No /dev/kvm is assumed: QEMU's TCG, chosen explicitly so the test behaves the same on every host.
    hypervisorDeviceAvailable: false,
    allowEmulation: true,
    libvirtVersion: '9.0.0',
    disksInfo: { rootdisk: { format: 'raw', backingFilename: '', actualSize: 0n, virtualSize: 0n } },
    paths: {
      kubevirtPrivateDir: join(files, 'private'),
      ephemeralDiskDir: join(files, 'ephemeral'),
      containerDiskDir: join(files, 'container-disks'),
      libvirtRunDir: join(files, 'libvirt'),
      kubevirtRunDir: join(files, 'kubevirt'),
    },
  });
}

function writeXml(name: string, xml: string): string {
  const path = join(work, `${name}.xml`);
  writeFileSync(path, xml);
  return path;
}

beforeAll(async () => {
  const started = await execa(privateRoot, ['libvirtd', root]);
  uri = started.stdout.trim().split('\n').pop() ?? '';
  await virsh('version');
}, 120_000);

afterAll(async () => {
  await virsh('destroy', 'default_demo');
  await virsh('undefine', 'default_demo');
  await execa(privateRoot, ['stop', root], { reject: false });
  rmSync(work, { recursive: true, force: true });
});

describe('ACPI in libvirtd 9.0', () => {
  it('the demo VMI, as written, defines with <acpi/> in its features', async () => {
    const xml = toDomainXml(convert(parseVmi(demoText), demoContext()));
    expect(xml).toMatch(/<features>\s*<acpi\/>/);
    const defined = await virsh('define', writeXml('demo', xml));
    expect(defined.stderr).toBe('');
    const live = (await virsh('dumpxml', '--inactive', 'default_demo')).stdout;
    expect(live).toMatch(/<features>\s*<acpi\/>/);
    expect((await virsh('undefine', 'default_demo')).exitCode).toBe(0);
  });

  it('with features.acpi.enabled: false the defined domain has no ACPI', async () => {
    const text = demoText.replace('  domain:\n', '  domain:\n    features:\n      acpi:\n        enabled: false\n');
    expect(text).toContain('enabled: false');
    const xml = toDomainXml(convert(parseVmi(text), demoContext()));
    expect((await virsh('define', writeXml('no-acpi', xml))).stderr).toBe('');
    const live = (await virsh('dumpxml', '--inactive', 'default_demo')).stdout;
    expect(live).not.toContain('<acpi');
    expect((await virsh('undefine', 'default_demo')).exitCode).toBe(0);
  });
});

/** Builds what the launcher would have laid out for the demo VMI: kernel, container disk overlay, NoCloud ISO. */
async function layOutDemoFiles(vmiUid: string, userData: string): Promise<void> {
  const guest = await execa('bash', [join(repoRoot, 'tools/demo-guest/build.sh')]);
  expect(guest.exitCode).toBe(0);
  const built = join(repoRoot, '.cache/demo-guest');
  const cd = join(files, 'container-disks');
  mkdirSync(join(cd, 'kernel-boot'), { recursive: true });
  copyFileSync(join(built, 'vmlinuz'), join(cd, 'kernel-boot/vmlinuz'));
  copyFileSync(join(built, 'initramfs.gz'), join(cd, 'kernel-boot/initramfs.gz'));
  copyFileSync(join(built, 'containerdisk.img'), join(cd, 'disk_0.img'));
  const overlayDir = join(files, 'ephemeral/disk-data/rootdisk');
  mkdirSync(overlayDir, { recursive: true });
  await execa('qemu-img', [
    'create',
    '-q',
    '-f',
    'qcow2',
    '-b',
    join(cd, 'disk_0.img'),
    '-F',
    'raw',
    join(overlayDir, 'disk.qcow2'),
  ]);
  const ci = join(files, 'ephemeral/cloud-init-data/default/demo');
  const seed = join(work, 'seed');
  mkdirSync(ci, { recursive: true });
  mkdirSync(seed, { recursive: true });
  writeFileSync(join(seed, 'meta-data'), JSON.stringify({ 'instance-id': 'acpi-test', 'local-hostname': 'demo' }));
  writeFileSync(join(seed, 'user-data'), userData);
  await execa('genisoimage', [
    '-quiet',
    '-output',
    join(ci, 'noCloud.iso'),
    '-volid',
    'cidata',
    '-joliet',
    '-rock',
    seed,
  ]);
  mkdirSync(join(files, 'private', vmiUid), { recursive: true });
}

/** Reads the guest's serial console (QEMU binds the socket shortly after start: retry until it is there). */
async function openConsole(path: string, deadline: number): Promise<{ socket: Socket; text: () => string }> {
  let buffer = '';
  for (;;) {
    try {
      const socket = await new Promise<Socket>((ok, fail) => {
        const s = connect(path, () => ok(s));
        s.once('error', fail);
      });
      socket.on('data', (d) => (buffer += d.toString('latin1')));
      socket.on('error', () => undefined);
      return { socket, text: () => buffer };
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

async function until(what: string, check: () => boolean, deadline: number, describeState: () => string): Promise<void> {
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what} not seen in time; ${describeState()}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe('ACPI power button', () => {
  it(
    'the demo guest, booted from the converted demo VMI under TCG, powers itself off on virsh shutdown (Stopped, reason shutdown)',
    async () => {
      // The demo VMI without its pod network (no tap in this test) and without VNC; everything else as written.
      const doc = parseYaml(demoText) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
      doc.spec.networks = [];
      doc.spec.domain.devices.interfaces = [];
      doc.spec.domain.devices.autoattachPodInterface = false;
      doc.spec.domain.devices.autoattachGraphicsDevice = false;
      const vmi = parseVmi(JSON.stringify(doc));
      const userData = (vmi.spec.volumes ?? []).find((v) => v.cloudInitNoCloud)?.cloudInitNoCloud?.userData as string;
      await layOutDemoFiles(vmi.metadata.uid!, userData);
      const xml = toDomainXml(convert(vmi, demoContext()));
      expect(xml).toContain('<domain type="qemu"');
      expect(xml).toMatch(/<features>\s*<acpi\/>/);
      expect((await virsh('define', writeXml('boot', xml))).stderr).toBe('');

      const events = execa(
        'virsh',
        ['-c', uri, 'event', '--domain', 'default_demo', '--event', 'lifecycle', '--loop'],
        {
          reject: false,
        },
      );
      try {
        const started = await virsh('start', 'default_demo');
        expect(started.stderr).toBe('');
        const deadline = Date.now() + BOOT_BOUND_MS;
        const serial = join(files, 'private', vmi.metadata.uid!, 'virt-serial0');
        const console = await openConsole(serial, deadline);
        await until(
          'VLT-GUEST: ready',
          () => console.text().includes('VLT-GUEST: ready'),
          deadline,
          () => console.text().slice(-400),
        );
        expect(console.text()).not.toContain('acpid not started');

        // ShutdownVirtualMachine's ACPI path: libvirt's default shutdown mode presses the power button.
        expect((await virsh('shutdown', '--mode', 'acpi', 'default_demo')).exitCode).toBe(0);
        const offBy = Date.now() + POWER_OFF_BOUND_MS;
        await until(
          'the guest powering off',
          () => console.text().includes('VLT-GUEST: power button, powering off'),
          offBy,
          () => console.text().slice(-400),
        );
        // The guest's own power-off ends QEMU; libvirt then reports the domain shut off.
        let state = '';
        while (!state.startsWith('shut off')) {
          if (Date.now() > offBy) throw new Error(`domain still "${state}" after the guest powered off`);
          await new Promise((r) => setTimeout(r, 250));
          state = (await virsh('domstate', 'default_demo')).stdout.trim();
        }
        console.socket.destroy();
      } finally {
        events.kill();
      }
      const stream = (await events).stdout;
      expect(stream).toMatch(/Stopped Shutdown/);
      expect(stream).not.toMatch(/Stopped Destroyed/);
      expect((await virsh('domstate', '--reason', 'default_demo')).stdout.trim()).toBe('shut off (shutdown)');
    },
    BOOT_BOUND_MS + POWER_OFF_BOUND_MS + 60_000,
  );
});

// Cross-architecture emulation on the real stack: an arm64 VMI converted on this x86_64 host with
// allowCrossArchEmulation (what the launcher passes under --allow-cross-arch-emulation) gives an aarch64 domain
// that libvirt's schema accepts and libvirtd 9.0 defines and starts under TCG on qemu-system-aarch64 (Debian's
// qemu-system-arm, installed by tools/setup-host.sh). A private libvirtd (tools/sandbox/private-root.sh) holds it.
//
// No guest OS boots: AArch64 UEFI firmware (qemu-efi-aarch64) is 264 MB installed, so the domain's pflash code and
// variable template are blank 64 MiB images made here. QEMU still runs the aarch64 "virt" machine; the test asks
// the running QEMU for its target architecture over QMP instead of waiting for a guest.
import { execa } from 'execa';
import { closeSync, mkdirSync, mkdtempSync, openSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { convert } from './builder.js';
import { ConverterContext } from './gen/virtlauncher/converter/v1/converter.js';
import { expectedRefusal, GOLDEN_DIR, goldenJson, readGolden } from './testing/golden.js';
import { parseVmi } from './vmi/parse.js';
import { toDomainXml } from './xml/domain-xml.js';

const here = dirname(fileURLToPath(import.meta.url));
const privateRoot = join(resolve(here, '../../..'), 'tools/sandbox/private-root.sh');
const DOMAIN = 'default_xarch';
/** QEMU's "virt" machine takes pflash images of exactly 64 MiB. */
const PFLASH_BYTES = 64 * 1024 * 1024;

const work = mkdtempSync(join(tmpdir(), 'vlt-converter-xarch-'));
const root = join(work, 'root');
// Under the private root, so that its `stop` also finds any QEMU started from these files.
const files = join(root, 'tmp', 'guest');
let uri = '';

const arm64Vmi = JSON.stringify({
  apiVersion: 'kubevirt.io/v1',
  kind: 'VirtualMachineInstance',
  metadata: { name: 'xarch', namespace: 'default' },
  spec: {
    architecture: 'arm64',
    // No pod network: the tap the launcher's network set-up makes does not exist here.
    domain: { devices: { autoattachPodInterface: false }, resources: { requests: { memory: '128Mi' } } },
  },
});

async function virsh(...args: string[]) {
  return execa('virsh', ['-c', uri, ...args], { reject: false });
}

/** The context the launcher builds for an arm64 VMI on an amd64 host under --allow-cross-arch-emulation. */
function emulatedContext(): ConverterContext {
  return ConverterContext.fromPartial({
    architecture: 'arm64',
    hostArchitecture: 'amd64',
    allowCrossArchEmulation: true,
    // Neither KVM nor --allow-emulation: a foreign guest is emulated whatever they say.
    hypervisorDeviceAvailable: false,
    allowEmulation: false,
    libvirtVersion: '9.0.0',
    efiConfiguration: {
      efiCode: join(files, 'AAVMF_CODE.fd'),
      efiVars: join(files, 'AAVMF_VARS.fd'),
      secureLoader: false,
      autoSelection: false,
    },
    paths: {
      kubevirtPrivateDir: join(files, 'private'),
      ephemeralDiskDir: join(files, 'ephemeral'),
      containerDiskDir: join(files, 'container-disks'),
      libvirtRunDir: join(files, 'libvirt'),
      kubevirtRunDir: join(files, 'kubevirt'),
      nvramDir: join(files, 'nvram'),
    },
  });
}

function emulatedXml(): string {
  return toDomainXml(convert(parseVmi(arm64Vmi), emulatedContext()));
}

beforeAll(async () => {
  const started = await execa(privateRoot, ['libvirtd', root]);
  uri = started.stdout.trim().split('\n').pop() ?? '';
  await virsh('version');
}, 120_000);

afterAll(async () => {
  await virsh('destroy', DOMAIN);
  await virsh('undefine', '--nvram', DOMAIN);
  await execa(privateRoot, ['stop', root], { reject: false });
  rmSync(work, { recursive: true, force: true });
});

describe('cross-architecture emulation in libvirtd 9.0 (aarch64 guest on this x86_64 host)', () => {
  it("the emulated arm64 VMI's domain is valid against libvirt's schema", async () => {
    const path = join(work, 'xarch.xml');
    writeFileSync(path, emulatedXml());
    const validated = await execa('virt-xml-validate', [path, 'domain'], { reject: false });
    expect(validated.stderr).toContain('validates');
    expect(validated.exitCode).toBe(0);
  });

  it("every converting kvm-* vector (testdata/kubevirt/COVERAGE-kvm.md) is a whole domain libvirt's schema accepts", async () => {
    const vectors = readdirSync(GOLDEN_DIR).filter((v) => v.startsWith('kvm-') && !expectedRefusal(v));
    expect(vectors.length).toBeGreaterThanOrEqual(8);
    for (const vector of vectors) {
      const ctx = ConverterContext.fromJSON(goldenJson(vector, 'context.json'));
      const vmi = parseVmi(readGolden(vector, 'vmi.json'), { architecture: ctx.architecture });
      const path = join(work, `${vector}.xml`);
      writeFileSync(path, toDomainXml(convert(vmi, ctx)));
      const validated = await execa('virt-xml-validate', [path, 'domain'], { reject: false });
      expect(validated.exitCode, `${vector}: ${validated.stderr}`).toBe(0);
    }
  });

  it('defines as an aarch64 TCG domain on qemu-system-aarch64, starts, runs an aarch64 QEMU, and is destroyed', async () => {
    const xml = emulatedXml();
    // Every unix socket the domain binds needs its directory; the firmware images are blank (see the header).
    for (const [, path] of xml.matchAll(/path="([^"]+)"/g)) mkdirSync(dirname(path as string), { recursive: true });
    mkdirSync(join(files, 'nvram'), { recursive: true });
    for (const image of ['AAVMF_CODE.fd', 'AAVMF_VARS.fd']) {
      const path = join(files, image);
      closeSync(openSync(path, 'w'));
      await execa('truncate', ['-s', String(PFLASH_BYTES), path]);
    }
    const path = join(work, 'xarch.xml');
    writeFileSync(path, xml);

    const defined = await virsh('define', path);
    expect(defined.stderr).toBe('');
    const inactive = (await virsh('dumpxml', '--inactive', DOMAIN)).stdout;
    expect(inactive).toMatch(/<domain type='qemu'/);
    expect(inactive).toContain('<emulator>/usr/bin/qemu-system-aarch64</emulator>');
    expect(inactive).toMatch(/<type arch='aarch64' machine='virt[^']*'>hvm<\/type>/);
    expect(inactive).not.toContain('<graphics');

    const started = await virsh('start', DOMAIN);
    expect(started.stderr).toBe('');
    expect((await virsh('domstate', DOMAIN)).stdout.trim()).toBe('running');
    const target = await virsh('qemu-monitor-command', DOMAIN, '{"execute":"query-target"}');
    expect(JSON.parse(target.stdout)).toMatchObject({ return: { arch: 'aarch64' } });
    const cpu = await virsh('qemu-monitor-command', DOMAIN, '{"execute":"query-cpus-fast"}');
    expect(JSON.parse(cpu.stdout).return[0]).toMatchObject({ target: 'aarch64' });

    expect((await virsh('destroy', DOMAIN)).exitCode).toBe(0);
    expect((await virsh('domstate', DOMAIN)).stdout.trim()).toBe('shut off');
    expect((await virsh('undefine', '--nvram', DOMAIN)).exitCode).toBe(0);
  }, 180_000);
});

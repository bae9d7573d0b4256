// The converter's output against the real libvirt here: libvirt's own schema (virt-xml-validate) and
// a private libvirtd (tools/sandbox/private-root.sh) that must define it.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { convert } from './builder.js';
import { hostContextDefaults, withDefaults } from './context/host.js';
import { ConverterContext } from './gen/virtlauncher/converter/v1/converter.js';
import { readGolden } from './testing/golden.js';
import { parseVmi } from './vmi/parse.js';
import { toDomainXml } from './xml/domain-xml.js';

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(here, '../../..');
const privateRoot = join(repoRoot, 'tools/sandbox/private-root.sh');
const vmA = readFileSync(join(here, '../examples/vm-a.yaml'), 'utf8');

const work = mkdtempSync(join(tmpdir(), 'vlt-converter-'));
let uri = '';

async function virsh(...args: string[]) {
  return execa('virsh', ['-c', uri, ...args], { reject: false });
}

function xmlFile(name: string, xml: string): string {
  const path = join(work, `${name}.xml`);
  writeFileSync(path, xml);
  return path;
}

/** This machine's facts (TCG when there is no /dev/kvm, libvirt 9.0) plus a VMI's tap names. */
function hostXml(text: string, extra: Partial<ConverterContext> = {}): string {
  const vmi = parseVmi(text);
  const ctx = withDefaults(ConverterContext.fromPartial(extra), hostContextDefaults(vmi));
  return toDomainXml(convert(vmi, { ...ctx, ...extra }));
}

async function validates(path: string) {
  return execa('virt-xml-validate', [path, 'domain'], { reject: false });
}

beforeAll(async () => {
  const started = await execa(privateRoot, ['libvirtd', join(work, 'root')]);
  uri = started.stdout.trim().split('\n').pop() ?? '';
  // The first connection probes QEMU (~4.5 s); do it once here.
  await virsh('version');
}, 120_000);

afterAll(async () => {
  await execa(privateRoot, ['stop', join(work, 'root')], { reject: false });
  rmSync(work, { recursive: true, force: true });
});

describe('libvirt 9.0 schema and libvirtd', () => {
  it('VM A validates, defines, and keeps its empty hot-plug root ports', async () => {
    const path = xmlFile('vm-a', hostXml(vmA));
    expect((await validates(path)).exitCode).toBe(0);
    const defined = await virsh('define', path);
    expect(defined.stderr).toBe('');
    const live = (await virsh('dumpxml', 'demo_vm-a')).stdout;
    expect(live).toContain("<maxMemory slots='1' unit='KiB'>8388608</maxMemory>");
    expect(live).toMatch(/<cell id='0' cpus='0-1' memory='2097152' unit='KiB'\/>/);
    // Root ports no device sits behind: their bus number appears in no other device's address.
    const ports = [...live.matchAll(/<controller type='pci' index='(\d+)' model='pcie-root-port'>/g)].map((m) =>
      Number(m[1]),
    );
    const usedBuses = new Set(
      [...live.matchAll(/<address type='pci' domain='0x0000' bus='0x([0-9a-f]{2})'/g)].map((m) => parseInt(m[1]!, 16)),
    );
    const empty = ports.filter((index) => !usedBuses.has(index));
    // 2Gi is not above 2 GiB, 6 PCI devices counted: KubeVirt leaves max(8 - 6, 3) = 3 ports empty
    // (the 3 NIC placeholders' ports; no extra). The usb controller (model none) takes no port: one more.
    expect(empty.length).toBeGreaterThanOrEqual(3);
    expect(ports.length).toBeLessThanOrEqual(31);
    expect((await virsh('undefine', 'demo_vm-a')).exitCode).toBe(0);
  });

  it('KubeVirt’s unadapted memory hot-plug shape is refused by this libvirt (why the adaptation exists)', async () => {
    const path = xmlFile('vm-a-new-shape', hostXml(vmA, { libvirtVersion: '11.0.0' }));
    const defined = await virsh('define', path);
    expect(defined.exitCode).not.toBe(0);
    expect(defined.stderr).toContain('memory slot count must be specified');
  });

  it('the golden x86_64 VMI converts to XML that validates and defines under TCG', async () => {
    const context = ConverterContext.fromJSON(JSON.parse(readGolden('x86_64', 'context.json')));
    const vmi = parseVmi(readGolden('x86_64', 'vmi.json'), { admission: false });
    const ctx = withDefaults(
      { ...context, hypervisorDeviceAvailable: false, allowEmulation: true },
      hostContextDefaults(vmi),
    );
    const path = xmlFile('x86_64', toDomainXml(convert(vmi, ctx)));
    const validation = await validates(path);
    expect(validation.stderr).toContain('validates');
    const defined = await virsh('define', path);
    expect(defined.stderr).toBe('');
    const live = (await virsh('dumpxml', 'mynamespace_testvmi')).stdout;
    expect(live).toContain("<domain type='qemu'>");
    expect(live).toContain('<iothreads>3</iothreads>');
    expect((await virsh('undefine', 'mynamespace_testvmi')).exitCode).toBe(0);
  });

  it('a kernel-boot VMI validates and defines with kernel and initrd under the container-disk dir', async () => {
    const text = vmA.replace(
      '    devices:',
      [
        '    firmware:',
        '      kernelBoot:',
        '        kernelArgs: console=ttyS0 quiet',
        '        container:',
        '          image: demo/kernel:latest',
        '          kernelPath: /boot/vmlinuz',
        '          initrdPath: /boot/initrd.img',
        '    devices:',
      ].join('\n'),
    );
    const path = xmlFile('kernel-boot', hostXml(text, { paths: { containerDiskDir: join(work, 'cd') } }));
    expect((await validates(path)).exitCode).toBe(0);
    const defined = await virsh('define', path);
    expect(defined.stderr).toBe('');
    const live = (await virsh('dumpxml', 'demo_vm-a')).stdout;
    expect(live).toContain(`<kernel>${join(work, 'cd')}/kernel-boot/vmlinuz</kernel>`);
    expect(live).toContain('<cmdline>console=ttyS0 quiet</cmdline>');
    await virsh('undefine', 'demo_vm-a');
  });
});

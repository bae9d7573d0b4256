// bin/node-labeller.sh run as virt-handler's init container runs it from the launcher image (KubeVirt v1.9
// pkg/virt-operator/resource/generate/components/daemonsets.go: `/bin/sh -c node-labeller.sh` as root with
// PREFERRED_VIRTTYPE and HYPERVISOR_DEVICE), in a private root whose /dev is chosen, and its files read back along
// the paths virt-handler reads them: pkg/virt-handler/node-labeller/model.go (HostDomCapabilities for
// virsh_domcapabilities.xml and the cross-arch file, SupportedHostFeature for supported_features.xml),
// cpu_plugin.go (which of those it uses), cmd/virt-handler/virt-handler.go (libvirtxml.Caps of capabilities.xml:
// the host CPU and each guest's machines).
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { privateRootScript } from './testing/launcher-process.js';

const run = promisify(execFile);
const binDir = resolve(fileURLToPath(import.meta.url), '../../bin');
const OUT = 'var/lib/kubevirt-node-labeller';
const kernelHasKvm = /^\s*\d+ kvm$/m.test(readFileSync('/proc/misc', 'utf8'));
const roots: string[] = [];

interface LabellerRun {
  dir: string;
  stderr: string;
}

/**
 * Runs the script in a fresh private root whose /dev (a tmpfs) has no kvm node. `hideKvmModule` covers /proc/misc with an empty file: a node whose
 * kernel has no KVM, where the script must not make /dev/kvm either.
 */
async function runLabeller(env: Record<string, string>, hideKvmModule = false): Promise<LabellerRun> {
  const root = await mkdtemp('/tmp/vlt-node-labeller-');
  roots.push(root);
  const emptyMisc = join(root, 'empty-misc');
  await writeFile(emptyMisc, '');
  const path = `${binDir}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin`;
  const vars = Object.entries({ PATH: path, ...env }).map(([k, v]) => `${k}=${v}`);
  const hide = hideKvmModule ? `mount --bind ${emptyMisc} /proc/misc && ` : '';
  const inRoot = ['bash', '-c', `${hide}exec env -i "$@" /bin/sh -c node-labeller.sh`, 'pod', ...vars];
  const { stderr } = await run(privateRootScript, ['exec', root, '--kvm', 'none', '--', ...inRoot], {
    timeout: 120_000,
  });
  return { dir: join(root, OUT), stderr };
}

/** xmllint's answer to an XPath expression over one of the files. */
async function xpath(file: string, expression: string): Promise<string> {
  const { stdout } = await run('xmllint', ['--xpath', expression, file]);
  return stdout.trim();
}

const count = async (file: string, expression: string) => Number(await xpath(file, `count(${expression})`));

/** The checks every run passes: each file parses, and holds what virt-handler's labeller takes from it. */
async function expectLabellerFiles(dir: string, virttype: 'kvm' | 'qemu'): Promise<void> {
  const names = (await readdir(dir)).sort();
  expect(names).toEqual(
    expect.arrayContaining(['capabilities.xml', 'supported_features.xml', 'virsh_domcapabilities.xml']),
  );
  expect(
    names.filter((n) => n.startsWith('.')),
    'no temporary file left',
  ).toEqual([]);
  const domcaps = join(dir, 'virsh_domcapabilities.xml');
  expect(await xpath(domcaps, 'string(/domainCapabilities/domain)')).toBe(virttype);
  expect(await xpath(domcaps, 'string(/domainCapabilities/machine)')).toMatch(/q35/);
  // loadDomCapabilities: host-model must hold a model (an error otherwise); usable models are those whose usable
  // attribute is set and not "no", with a name.
  expect(await count(domcaps, "/domainCapabilities/cpu/mode[@name='host-model']/model")).toBeGreaterThanOrEqual(1);
  expect(await xpath(domcaps, "string(/domainCapabilities/cpu/mode[@name='host-model']/model)")).not.toBe('');
  expect(await count(domcaps, "/domainCapabilities/cpu/mode/model[@usable and @usable!='no']")).toBeGreaterThan(0);
  // loadHostSupportedFeatures: the features whose policy is "require".
  const features = join(dir, 'supported_features.xml');
  expect(await count(features, "/cpu/feature[@policy='require' and @name!='']")).toBeGreaterThan(0);
  // virt-handler's getMachines: every guest's arch machines; the launcher's q35 among them.
  const caps = join(dir, 'capabilities.xml');
  expect(await count(caps, '/capabilities/host/cpu')).toBe(1);
  expect(await count(caps, "/capabilities/guest/arch[@name='x86_64']/machine")).toBeGreaterThan(0);
  expect(
    await count(caps, "/capabilities/guest/arch/machine[starts-with(., 'pc-q35-') or @canonical]"),
  ).toBeGreaterThan(0);
  // loadCrossArchCapabilities: the file exists only when it parses as domain capabilities of that architecture.
  const cross = join(dir, 'virsh_domcapabilities_aarch64.xml');
  if (existsSync(cross)) expect(await xpath(cross, 'string(/domainCapabilities/arch)')).toBe('aarch64');
  const haveAarch64 = existsSync('/usr/bin/qemu-system-aarch64');
  expect(existsSync(cross), 'the aarch64 file exists exactly when its emulator does').toBe(haveAarch64);
}

afterAll(async () => {
  for (const root of roots) await rm(root, { recursive: true, force: true });
});

describe.skipIf(process.arch !== 'x64')('node-labeller.sh as virt-handler runs it', () => {
  it('a node without KVM: the files describe emulation (virttype qemu) and no /dev/kvm is made', async () => {
    const r = await runLabeller({ PREFERRED_VIRTTYPE: 'kvm', HYPERVISOR_DEVICE: 'kvm' }, true);
    expect(r.stderr).toContain('virttype qemu');
    await expectLabellerFiles(r.dir, 'qemu');
  }, 150_000);

  it.skipIf(!kernelHasKvm)(
    // The private root's /dev is a tmpfs: the node the script makes (and opens to others) is its own. With the
    // host's /dev/kvm bound in (--kvm host) its chmod o+rw would reach the host's device.
    'KVM in the kernel but not in /dev, variables unset: it makes /dev/kvm and falls back to kvm for both',
    async () => {
      const r = await runLabeller({});
      expect(r.stderr).toContain("HYPERVISOR_DEVICE='' PREFERRED_VIRTTYPE='': using kvm for both");
      expect(r.stderr).toContain('virttype kvm');
      await expectLabellerFiles(r.dir, 'kvm');
    },
    150_000,
  );
});

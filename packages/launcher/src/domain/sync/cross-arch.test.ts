import { describe, expect, it } from 'vitest';
import { convertVmi } from '../../adapters/converter.js';
import { InvalidRequestError } from '../../errors.js';
import { parseFlags } from '../../flags.js';
import { resolvePaths } from '../../paths.js';
import { parseVmiRequest } from '../../vmi.js';
import { buildContext, type HostFacts } from './build-context.js';
import { checkCrossArchEmulator, crossArchFields } from './cross-arch.js';
import { testHostFacts } from '../../testing/host-facts.js';

const hostFacts: HostFacts = testHostFacts();

function arm64Vmi() {
  const spec = { architecture: 'arm64', domain: { devices: {}, resources: { requests: { memory: '64Mi' } } } };
  const vmi = { apiVersion: 'kubevirt.io/v1', kind: 'VirtualMachineInstance', metadata: vmiMeta, spec };
  return parseVmiRequest(Buffer.from(JSON.stringify(vmi)));
}
const vmiMeta = { name: 'vm1', namespace: 'default', uid: 'uid-1' };

function contextFor(args: string[]) {
  const flags = parseFlags(['--run-root', '/tmp/vlt-cross-arch', '--uid', 'uid-1', ...args], {});
  return buildContext(hostFacts, arm64Vmi(), undefined, flags, resolvePaths(flags));
}

describe('cross-architecture emulation: the context the launcher builds', () => {
  it('the flag and a foreign VMI: built for the VMI, emulated, the host named', () => {
    expect(crossArchFields('amd64', 'arm64', true)).toEqual({
      architecture: 'arm64',
      hostArchitecture: 'amd64',
      allowCrossArchEmulation: true,
    });
  });

  it('no emulation without the flag, for a native VMI, or for one that names no architecture', () => {
    const native = { architecture: 'amd64', hostArchitecture: 'amd64', allowCrossArchEmulation: false };
    expect(crossArchFields('amd64', 'arm64', false)).toEqual(native);
    expect(crossArchFields('amd64', 'amd64', true)).toEqual(native);
    expect(crossArchFields('amd64', undefined, true)).toEqual(native);
  });

  it('--allow-cross-arch-emulation reaches the domain: aarch64 under TCG on qemu-system-aarch64, no graphics', async () => {
    const context = contextFor(['--allow-cross-arch-emulation']);
    expect(context).toMatchObject({ architecture: 'arm64', hostArchitecture: 'amd64', allowCrossArchEmulation: true });
    const xml = (await convertVmi(arm64Vmi().raw, context)).domainXml;
    expect(xml).toMatch(/^<domain type="qemu"/m);
    expect(xml).toContain('<emulator>/usr/bin/qemu-system-aarch64</emulator>');
    expect(xml).toMatch(/<type arch="aarch64" machine="virt">hvm<\/type>/);
    expect(xml).toMatch(/<cpu mode="custom">\s*<model>max<\/model>/);
    expect(xml).not.toContain('<graphics');
  });

  it('without the flag the converter refuses the arm64 VMI, naming spec.architecture and the feature gate', async () => {
    const context = contextFor([]);
    expect(context.allowCrossArchEmulation).toBe(false);
    await expect(convertVmi(arm64Vmi().raw, context)).rejects.toThrow(
      /spec\.architecture: "arm64" is not the host's architecture "amd64".*CrossArchitectureVirtualization/,
    );
  });
});

describe('checkCrossArchEmulator', () => {
  const emulated = { architecture: 'arm64', allowCrossArchEmulation: true };

  it("refuses with KubeVirt's words when the emulator is missing", async () => {
    const caught = await checkCrossArchEmulator(emulated, async () => false).catch((e: unknown) => e);
    expect(caught).toBeInstanceOf(InvalidRequestError);
    expect((caught as InvalidRequestError).message).toBe(
      'required emulator binary not found: /usr/bin/qemu-system-aarch64',
    );
    expect((caught as InvalidRequestError).field).toBe('spec.architecture');
  });

  it('passes when it exists, and checks nothing for a native VMI', async () => {
    const asked: string[] = [];
    const exists = async (path: string) => (asked.push(path), true);
    await expect(checkCrossArchEmulator(emulated, exists)).resolves.toBeUndefined();
    await checkCrossArchEmulator({ architecture: 'amd64', allowCrossArchEmulation: false }, exists);
    expect(asked).toEqual(['/usr/bin/qemu-system-aarch64']);
  });

  it('looks at the real file system by default (qemu-system-x86_64 is installed here; riscv64 has no emulator to look for)', async () => {
    await expect(
      checkCrossArchEmulator({ architecture: 'amd64', allowCrossArchEmulation: true }),
    ).resolves.toBeUndefined();
    await expect(
      checkCrossArchEmulator({ architecture: 'riscv64', allowCrossArchEmulation: true }),
    ).resolves.toBeUndefined();
  });
});

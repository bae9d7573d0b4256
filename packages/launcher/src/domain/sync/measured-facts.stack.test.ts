// The launcher's first sync steps on this machine's real facts, against a private libvirtd 9.0: gather context
// (host NUMA topology from the daemon's capabilities, the pod cpuset, the measured block sizes of a loop device
// with 4096-byte sectors and of a file on /tmp), convert, and define. Define only: nothing boots, so the test
// costs the daemon's start and a few calls. The guest is converted for QEMU TCG on purpose (there may be no KVM).
// Hugepages need not be reserved here: libvirt checks them when a guest starts, not when it is defined.
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { mkdir, mkdtemp, rm, stat, statfs, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConverterContext } from '../../adapters/converter.js';
import { convertVmi } from '../../adapters/converter.js';
import { connectLibvirt, type Connection } from '../../adapters/libvirt.js';
import { parseFlags } from '../../flags.js';
import { resolvePaths } from '../../paths.js';
import { privateRootScript } from '../../testing/launcher-process.js';
import { parseVmiRequest } from '../../vmi.js';
import { deviceNumbers } from './block-size-probe.js';
import type { SyncEnv } from './env.js';
import { gatherContext } from './gather-context.js';
import { parseCpuList } from './pod-cpuset.js';

let work = '';
let loop = '';
let conn: Connection | undefined;
let env: SyncEnv | undefined;

function vmi(name: string, domain: Record<string, unknown>, volumes: unknown[] = []) {
  const doc = {
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachineInstance',
    metadata: { name, namespace: 'default', uid: `uid-${name}` },
    spec: {
      domain: {
        resources: { requests: { memory: '64Mi' } },
        ...domain,
        devices: { autoattachPodInterface: false, autoattachGraphicsDevice: false, ...(domain.devices ?? {}) },
      },
      volumes,
    },
  };
  return parseVmiRequest(Buffer.from(JSON.stringify(doc)));
}

/** Converts for TCG (chosen, not probed), defines, returns libvirt's own XML of the domain, then undefines it. */
async function defineAndDump(view: ReturnType<typeof vmi>, context: ConverterContext): Promise<string> {
  const { domainXml } = await convertVmi(view.raw, { ...context, hypervisorDeviceAvailable: false });
  const dom = await conn!.defineXML(domainXml);
  try {
    return await dom.getXMLDesc({ inactive: true });
  } finally {
    await dom.undefine();
  }
}

/** The kernel's own NUMA nodes and their CPUs: a source independent of libvirt to check its answer against. */
function sysfsNodes(): Array<{ id: number; cpus: number[] }> {
  const base = '/sys/devices/system/node';
  return readdirSync(base)
    .filter((entry) => /^node\d+$/.test(entry))
    .map((entry) => ({
      id: Number(entry.slice(4)),
      cpus: parseCpuList(readFileSync(join(base, entry, 'cpulist'), 'utf8')),
    }))
    .sort((a, b) => a.id - b.id);
}

beforeAll(async () => {
  work = await mkdtemp('/tmp/vlt-launcher-facts-');
  const started = execFileSync(privateRootScript, ['libvirtd', join(work, 'libvirtd')])
    .toString()
    .trim();
  conn = await connectLibvirt(started.split('\n').pop() ?? '');
  const runRoot = join(work, 'root');
  const flags = parseFlags(['--run-root', runRoot, '--uid', 'uid-facts', '--allow-emulation'], {});
  env = {
    conn: () => conn!,
    flags,
    paths: resolvePaths(flags),
    metadata: undefined as never,
    prepareNetwork: async () => undefined,
  };
  // A block PVC: a loop device with 4096-byte sectors, its node at the pod's /dev/<volume> (here under the
  // run root, as the probe looks there). A filesystem PVC: vmi-disks/<volume>/disk.img on /tmp.
  const backing = join(work, 'claim.raw');
  await writeFile(backing, '');
  await truncate(backing, 1024 * 1024);
  loop = execFileSync('losetup', ['--find', '--show', '--sector-size', '4096', backing]).toString().trim();
  const { major, minor } = deviceNumbers((await stat(loop, { bigint: true })).rdev);
  await mkdir(join(runRoot, 'dev'), { recursive: true });
  execFileSync('mknod', [join(runRoot, 'dev', 'blockpvc'), 'b', String(major), String(minor)]);
  await mkdir(join(env.paths.vmiDisksDir, 'fspvc'), { recursive: true });
  await writeFile(join(env.paths.vmiDisksDir, 'fspvc', 'disk.img'), '');
  await truncate(join(env.paths.vmiDisksDir, 'fspvc', 'disk.img'), 1024 * 1024);
}, 120_000);

afterAll(async () => {
  await conn?.close().catch(() => undefined);
  if (work) execFileSync(privateRootScript, ['stop', join(work, 'libvirtd')], { stdio: 'ignore' });
  if (loop) execFileSync('losetup', ['-d', loop]);
  if (work) await rm(work, { recursive: true, force: true });
}, 60_000);

describe("guest NUMA passthrough on this machine's topology", () => {
  it('reads the topology from libvirt, pins to the pod cpuset and defines the NUMA-mapped realtime guest', async () => {
    const view = vmi('numa', {
      cpu: { cores: 1, dedicatedCpuPlacement: true, numa: { guestMappingPassthrough: {} }, realtime: {} },
      memory: { hugepages: { pageSize: '2Mi' } },
    });
    const context = await gatherContext(env!, view, undefined);
    // libvirt's answer matches the kernel's nodes and CPUs.
    expect(context.hostNumaNodes.map(({ id, cpus }) => ({ id, cpus }))).toEqual(sysfsNodes());
    expect(context.cpuSet.length).toBeGreaterThan(0);
    const pinned = context.cpuSet[0]!;
    const hostNode = context.hostNumaNodes.find((n) => n.cpus.includes(pinned))!.id;

    const live = await defineAndDump(view, context);
    expect(live).toContain(`<vcpupin vcpu='0' cpuset='${pinned}'/>`);
    expect(live).toMatch(/<cell id='0' cpus='0' memory='65536' unit='KiB'/);
    expect(live).toContain(`<memnode cellid='0' mode='strict' nodeset='${hostNode}'/>`);
    expect(live).toContain(`<memory mode='strict' nodeset='${hostNode}'/>`);
    expect(live).toContain("<page size='2048' unit='KiB' nodeset='0'/>");
    // Realtime vCPUs need the passed-through topology, so they define too.
    expect(live).toContain("<vcpusched vcpus='0' scheduler='fifo' priority='1'/>");
    expect(live).toContain('<nosharepages/>');
  }, 120_000);
});

describe('blockSize.matchVolume on real volumes', () => {
  it("measures the loop device's 4096-byte sectors and the file's filesystem, and the defined disks carry them", async () => {
    const view = vmi(
      'blocksize',
      {
        devices: {
          disks: [
            { name: 'blockpvc', disk: { bus: 'virtio' }, blockSize: { matchVolume: {} } },
            { name: 'fspvc', disk: { bus: 'virtio' }, blockSize: { matchVolume: { enabled: true } } },
          ],
        },
      },
      [
        { name: 'blockpvc', persistentVolumeClaim: { claimName: 'claim-block' } },
        { name: 'fspvc', persistentVolumeClaim: { claimName: 'claim-fs' } },
      ],
    );
    const context = await gatherContext(env!, view, undefined);
    const queue = `/sys/block/${loop.replace('/dev/', '')}/queue/discard_granularity`;
    const granularity = Number(readFileSync(queue, 'utf8').trim());
    expect(context.volumeBlockSizes.blockpvc).toEqual({
      logical: 4096,
      physical: 4096,
      discardGranularity: granularity % 4096 === 0 ? granularity : 4096,
    });
    const { bsize } = await statfs(join(env!.paths.vmiDisksDir, 'fspvc', 'disk.img'));
    expect(context.volumeBlockSizes.fspvc).toEqual({ logical: bsize, physical: bsize, discardGranularity: bsize });

    const live = await defineAndDump(view, context);
    const disk = (source: string) =>
      new RegExp(`<disk [^>]*>(?:(?!</disk>)[\\s\\S])*${source}[\\s\\S]*?</disk>`).exec(live)?.[0];
    expect(disk("<source dev='/dev/blockpvc'")).toMatch(
      /<blockio logical_block_size='4096' physical_block_size='4096'/,
    );
    expect(disk('fspvc/disk.img')).toContain(`<blockio logical_block_size='${bsize}' physical_block_size='${bsize}'`);
  }, 120_000);
});

// The host NUMA topology and measured block sizes end to end in the launcher's pure half: the facts the probe
// found go through buildContext into the converter, which builds guest NUMA cells and <blockio> from them, or
// refuses a VMI whose facts are missing.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { convertVmi } from '../../adapters/converter.js';
import { parseFlags } from '../../flags.js';
import { resolvePaths } from '../../paths.js';
import { parseVmiRequest } from '../../vmi.js';
import { buildContext } from './build-context.js';
import type { HostFacts } from './build-context.js';
import { hostNumaNodes, parseCapabilitiesTopology } from './host-numa.js';
import { testHostFacts } from '../../testing/host-facts.js';

const here = dirname(fileURLToPath(import.meta.url));
const twoNodes = hostNumaNodes(
  parseCapabilitiesTopology(readFileSync(join(here, 'testdata/capabilities-two-nodes.xml'), 'utf8')),
);
const flags = { ...parseFlags(['--run-root', '/tmp/vlt-measured-facts', '--uid', 'uid-1'], {}), allowEmulation: true };
const paths = resolvePaths(flags);

const facts = (extra: Partial<HostFacts>): HostFacts => testHostFacts(extra);

function vmi(domain: Record<string, unknown>, volumes: unknown[] = []) {
  const doc = {
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachineInstance',
    metadata: { name: 'measured', namespace: 'default', uid: 'uid-1' },
    spec: { domain: { resources: { requests: { memory: '64Mi' } }, devices: {}, ...domain }, volumes },
  };
  return parseVmiRequest(Buffer.from(JSON.stringify(doc)));
}

async function convert(domain: Record<string, unknown>, extra: Partial<HostFacts>, volumes: unknown[] = []) {
  const view = vmi(domain, volumes);
  return convertVmi(view.raw, buildContext(facts(extra), view, undefined, flags, paths));
}

const passthrough = {
  cpu: { cores: 2, dedicatedCpuPlacement: true, numa: { guestMappingPassthrough: {} } },
  memory: { hugepages: { pageSize: '2Mi' } },
};

describe('guest NUMA passthrough from the host topology the launcher read', () => {
  it('vCPUs pinned to CPUs of both host nodes give two guest cells bound to those nodes', async () => {
    // CPU 1 is in host node 0, CPU 2 in host node 1 (testdata/capabilities-two-nodes.xml).
    const { domainXml } = await convert(passthrough, { podCpuSet: [1, 2], hostNumaNodes: twoNodes });
    expect(domainXml).toMatch(/<cell id="0" cpus="0" memory="32768" unit="KiB">/);
    expect(domainXml).toMatch(/<cell id="1" cpus="1" memory="32768" unit="KiB">/);
    expect(domainXml).toMatch(/<memnode cellid="0" mode="strict" nodeset="0"\/>/);
    expect(domainXml).toMatch(/<memnode cellid="1" mode="strict" nodeset="1"\/>/);
    expect(domainXml).toMatch(/<sibling id="1" value="21"\/>/);
  });

  it('without a topology the converter refuses, naming the missing topology', async () => {
    const err = await convert(passthrough, { podCpuSet: [1, 2] }).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/NUMA passthrough needs the host NUMA topology/);
  });
});

describe('blockSize.matchVolume from the sizes the launcher measured', () => {
  const disk = { devices: { disks: [{ name: 'data', disk: {}, blockSize: { matchVolume: {} } }] } };
  const volumes = [{ name: 'data', persistentVolumeClaim: { claimName: 'c' } }];

  it('the measured sizes reach <blockio>', async () => {
    const volumeBlockSizes = { data: { logical: 4096, physical: 4096, discardGranularity: 0 } };
    const { domainXml } = await convert(disk, { blockVolumes: { data: true }, volumeBlockSizes }, volumes);
    expect(domainXml).toMatch(
      /<blockio logical_block_size="4096" physical_block_size="4096" discard_granularity="0"\/>/,
    );
  });

  it('an unmeasured volume is refused, naming the disk', async () => {
    const err = await convert(disk, {}, volumes).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(
      /disks\[0\]\.blockSize\.matchVolume: no measured block size for volume "data"/,
    );
  });
});

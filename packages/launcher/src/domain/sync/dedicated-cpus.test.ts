// Dedicated CPU placement end to end in the launcher's pure half: the pod cpuset (as the probe found it) goes
// through buildContext into the converter, which pins to it or refuses a set too small.
import { describe, expect, it } from 'vitest';
import { convertVmi } from '../../adapters/converter.js';
import { parseFlags } from '../../flags.js';
import { resolvePaths } from '../../paths.js';
import { parseVmiRequest } from '../../vmi.js';
import { buildContext } from './build-context.js';
import type { HostFacts } from './build-context.js';
import { parseCpuList } from './pod-cpuset.js';
import { testHostFacts } from '../../testing/host-facts.js';

const flags = { ...parseFlags(['--run-root', '/tmp/vlt-dedicated-cpus', '--uid', 'uid-1'], {}), allowEmulation: true };
const paths = resolvePaths(flags);

const facts = (podCpuSet?: number[]): HostFacts => testHostFacts({ podCpuSet });

function vmi(cpu: Record<string, unknown>) {
  const doc = {
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachineInstance',
    metadata: { name: 'pinned', namespace: 'default', uid: 'uid-1' },
    spec: { domain: { cpu, resources: { requests: { memory: '64Mi' } }, devices: {} } },
  };
  return parseVmiRequest(Buffer.from(JSON.stringify(doc)));
}

async function convert(cpu: Record<string, unknown>, podCpuSet?: number[]) {
  const view = vmi(cpu);
  return convertVmi(view.raw, buildContext(facts(podCpuSet), view, undefined, flags, paths));
}

describe('dedicatedCpuPlacement takes its CPUs from the pod cpuset', () => {
  it('buildContext passes the probed set (sorted by the parser) and an empty one when nothing was probed', () => {
    const view = vmi({ cores: 2, dedicatedCpuPlacement: true });
    expect(buildContext(facts(parseCpuList('6,4-5')), view, undefined, flags, paths).cpuSet).toEqual([4, 5, 6]);
    expect(buildContext(facts(), view, undefined, flags, paths).cpuSet).toEqual([]);
  });

  it('with enough CPUs each vCPU is pinned to one of them', async () => {
    const { domainXml } = await convert({ cores: 2, dedicatedCpuPlacement: true }, parseCpuList('4-5'));
    expect(domainXml).toMatch(/<vcpupin vcpu="0" cpuset="4"\/>/);
    expect(domainXml).toMatch(/<vcpupin vcpu="1" cpuset="5"\/>/);
  });

  it('with too few CPUs the conversion is refused, naming the count', async () => {
    const err = await convert({ cores: 2, dedicatedCpuPlacement: true }, [4]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toMatch(/2 vCPUs need 2 exclusive CPUs, the set has 1/);
  });

  it('without dedicated placement the set is not needed and nothing is pinned', async () => {
    const { domainXml } = await convert({ cores: 2 });
    expect(domainXml).not.toContain('<vcpupin');
  });
});

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Topology } from '../../gen/kubevirt/cmd/v1/cmd.js';
import {
  HostTopologyError,
  hostNumaNodes,
  parseCapabilitiesTopology,
  readHostNumaNodes,
  wantsNumaPassthrough,
} from './host-numa.js';

const here = dirname(fileURLToPath(import.meta.url));
const twoNodes = readFileSync(join(here, 'testdata/capabilities-two-nodes.xml'), 'utf8');

function refusal(fn: () => unknown): HostTopologyError {
  try {
    fn();
  } catch (err) {
    if (err instanceof HostTopologyError) return err;
    throw err;
  }
  throw new Error('not refused');
}

const caps = (cells: string) =>
  `<capabilities><host><topology><cells>${cells}</cells></topology></host></capabilities>`;

describe("the host NUMA topology from libvirt's capabilities", () => {
  it('reads both cells of a two-node host: memory, hugepage pools, distances and CPUs with their siblings', () => {
    const topology = parseCapabilitiesTopology(twoNodes);
    expect(topology.numaCells).toHaveLength(2);
    const [zero, one] = topology.numaCells;
    expect(zero).toMatchObject({ id: 0, memory: { amount: 16303420n, unit: 'KiB' } });
    expect(one?.pages).toEqual([
      { count: 3866134n, unit: 'KiB', size: 4 },
      { count: 512n, unit: 'KiB', size: 2048 },
      { count: 0n, unit: 'KiB', size: 1048576 },
    ]);
    expect(zero?.distances).toEqual([
      { id: 0, value: 10n },
      { id: 1, value: 21n },
    ]);
    // libvirt writes siblings as a list or a range; both are read.
    expect(zero?.cpus[0]).toEqual({ id: 0, siblings: [0, 4] });
    expect(one?.cpus[0]).toEqual({ id: 2, siblings: [2, 3] });
  });

  it("gives the converter each node's id, CPUs, distances and thread siblings", () => {
    const pair = (cpu: number, siblings: number[]) => ({ cpu, siblings });
    expect(hostNumaNodes(parseCapabilitiesTopology(twoNodes))).toEqual([
      {
        id: 0,
        cpus: [0, 1, 4, 5],
        distances: { 0: 10, 1: 21 },
        cpuSiblings: [pair(0, [0, 4]), pair(1, [1, 5]), pair(4, [0, 4]), pair(5, [1, 5])],
      },
      {
        id: 1,
        cpus: [2, 3, 6, 7],
        distances: { 0: 21, 1: 10 },
        cpuSiblings: [pair(2, [2, 3]), pair(3, [2, 3]), pair(6, [6, 7]), pair(7, [6, 7])],
      },
    ]);
  });

  it('a host without a <topology> (libvirt could not read one) has no cells', () => {
    expect(parseCapabilitiesTopology('<capabilities><host><cpu/></host></capabilities>').numaCells).toEqual([]);
  });

  it('refuses what is not a topology, naming where', () => {
    expect(refusal(() => parseCapabilitiesTopology('<domain/>')).where).toBe('root element');
    expect(refusal(() => parseCapabilitiesTopology('<capabilities><host>')).where).toBe('capabilities');
    const badId = refusal(() => parseCapabilitiesTopology(caps("<cell id='x'/>")));
    expect(badId.where).toBe('cell[0].id');
    expect(badId.value).toBe('x');
    const badCpu = refusal(() => parseCapabilitiesTopology(caps("<cell id='0'><cpus><cpu id='-1'/></cpus></cell>")));
    expect(badCpu.where).toBe('cell 0 cpus[0].id');
    const badSiblings = refusal(() =>
      parseCapabilitiesTopology(caps("<cell id='0'><cpus><cpu id='1' siblings='3-1'/></cpus></cell>")),
    );
    expect(badSiblings.message).toContain('is not a CPU list');
    const farAway = refusal(() =>
      parseCapabilitiesTopology(caps("<cell id='0'><distances><sibling id='0' value='256'/></distances></cell>")),
    );
    expect(farAway.where).toBe('cell 0 distances[0].value');
  });

  it('refuses a topology with a cell twice or a CPU in two cells', () => {
    const twice = parseCapabilitiesTopology(caps("<cell id='0'/><cell id='0'/>"));
    expect(refusal(() => hostNumaNodes(twice)).message).toContain('appears twice');
    const shared = parseCapabilitiesTopology(
      caps("<cell id='0'><cpus><cpu id='1'/></cpus></cell><cell id='1'><cpus><cpu id='1'/></cpus></cell>"),
    );
    expect(refusal(() => hostNumaNodes(shared)).message).toContain('is also in cell 0');
  });
});

describe('which topology the launcher converts with', () => {
  const sent: Topology = {
    numaCells: [
      { id: 3, memory: undefined, pages: [], distances: [{ id: 3, value: 10n }], cpus: [{ id: 9, siblings: [] }] },
    ],
  };

  it("virt-handler's topology when the request carries cells (libvirt is not asked)", async () => {
    const nodes = await readHostNumaNodes({ topology: sent } as never, () => Promise.reject(new Error('asked')));
    expect(nodes).toEqual([{ id: 3, cpus: [9], distances: { 3: 10 }, cpuSiblings: [] }]);
  });

  it("the local libvirt daemon's capabilities when the request has none or an empty one", async () => {
    const expected = hostNumaNodes(parseCapabilitiesTopology(twoNodes));
    expect(await readHostNumaNodes(undefined, async () => twoNodes)).toEqual(expected);
    expect(await readHostNumaNodes({ topology: { numaCells: [] } } as never, async () => twoNodes)).toEqual(expected);
  });

  it('is needed only for a VMI asking for guest NUMA passthrough', () => {
    const raw = (cpu: unknown) => ({ raw: Buffer.from(JSON.stringify({ spec: { domain: { cpu } } })) });
    expect(wantsNumaPassthrough(raw({ dedicatedCpuPlacement: true, numa: { guestMappingPassthrough: {} } }))).toBe(
      true,
    );
    expect(wantsNumaPassthrough(raw({ dedicatedCpuPlacement: true }))).toBe(false);
    expect(wantsNumaPassthrough(raw({ numa: {} }))).toBe(false);
    expect(wantsNumaPassthrough({ raw: Buffer.from('not json') })).toBe(false);
  });
});

// The host NUMA node of each PCI device, read from a sysfs tree made in a temporary directory, and the whole
// launcher-side path with the PCINUMAAwareTopology gate: environment + sysfs -> readHostDevices -> buildContext
// (gate from the cluster config) -> the real converter, whose domain puts the devices on an expander bus.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { convertVmi } from '../../../adapters/converter.js';
import { VirtualMachineOptions } from '../../../gen/kubevirt/cmd/v1/cmd.js';
import { parseFlags } from '../../../flags.js';
import { resolvePaths } from '../../../paths.js';
import { parseVmiRequest } from '../../../vmi.js';
import { buildContext, type HostFacts } from '../build-context.js';
import { readPciNumaNode, wantsPciNumaNodes, withPciNumaNodes } from './numa-nodes.js';
import { readHostDevices } from './read.js';
import { hostDevice } from './wire.js';
import { testHostFacts } from '../../../testing/host-facts.js';

function vmiJson(cpu: Record<string, unknown>): Buffer {
  return Buffer.from(
    JSON.stringify({
      apiVersion: 'kubevirt.io/v1',
      kind: 'VirtualMachineInstance',
      metadata: { name: 'numa', namespace: 'default', uid: 'uid-numa' },
      spec: {
        domain: {
          cpu,
          resources: { requests: { memory: '64Mi' } },
          memory: { hugepages: { pageSize: '2Mi' } },
          devices: {
            hostDevices: [{ name: 'qat', deviceName: 'intel.com/qat' }],
            gpus: [{ name: 'gpu', deviceName: 'nvidia.com/T4' }],
          },
        },
      },
    }),
  );
}

const gateOn = VirtualMachineOptions.fromPartial({ clusterConfig: { PCINUMAAwareTopologyEnabled: true } });
const ENV = { PCI_RESOURCE_INTEL_COM_QAT: '0000:3d:01.0', PCI_RESOURCE_NVIDIA_COM_T4: '0000:AF:00.0' };

describe('PCI devices’ host NUMA nodes from sysfs', () => {
  let sysfs = '';
  beforeAll(async () => {
    sysfs = await mkdtemp(join(tmpdir(), 'vlt-launcher-sysfs-'));
    const nodes: Record<string, string> = {
      '0000:3d:01.0': '0\n',
      '0000:af:00.0': '1\n',
      '0000:3d:02.0': '-1\n',
      '0000:3d:03.0': 'x\n',
    };
    for (const [address, text] of Object.entries(nodes)) {
      await mkdir(join(sysfs, 'bus/pci/devices', address), { recursive: true });
      await writeFile(join(sysfs, 'bus/pci/devices', address, 'numa_node'), text);
    }
  });
  afterAll(async () => {
    await rm(sysfs, { recursive: true, force: true });
  });

  it('reads a node number; upper-case addresses are found under sysfs’s lower-case name', async () => {
    expect(await readPciNumaNode('0000:3d:01.0', sysfs)).toBe(0);
    expect(await readPciNumaNode('0000:AF:00.0', sysfs)).toBe(1);
  });

  it('leaves out -1 (no affinity), a missing file, a non-number and an address that is not one', async () => {
    expect(await readPciNumaNode('0000:3d:02.0', sysfs)).toBeUndefined();
    expect(await readPciNumaNode('0000:3d:09.0', sysfs)).toBeUndefined();
    expect(await readPciNumaNode('0000:3d:03.0', sysfs)).toBeUndefined();
    expect(await readPciNumaNode('../../../etc', sysfs)).toBeUndefined();
  });

  it('sets numaNode on PCI devices only, in every list', async () => {
    const lists = await withPciNumaNodes(
      {
        genericHostDevices: [
          hostDevice({ type: 'pci', alias: 'hostdevice-a', pciAddress: '0000:3d:01.0' }),
          hostDevice({ type: 'mdev', alias: 'hostdevice-m', mdevUuid: 'u' }),
          hostDevice({ type: 'pci', alias: 'hostdevice-none', pciAddress: '0000:3d:02.0' }),
        ],
        gpuHostDevices: [hostDevice({ type: 'pci', alias: 'gpu-g', pciAddress: '0000:af:00.0' })],
        sriovDevices: [],
      },
      sysfs,
    );
    expect(lists.genericHostDevices.map((d) => d.numaNode)).toEqual([0, undefined, undefined]);
    expect(lists.gpuHostDevices[0]?.numaNode).toBe(1);
  });

  it('are wanted only with the gate on and dedicated CPUs', () => {
    const dedicated = { raw: vmiJson({ dedicatedCpuPlacement: true }) };
    expect(wantsPciNumaNodes(dedicated, gateOn)).toBe(true);
    expect(wantsPciNumaNodes(dedicated, VirtualMachineOptions.fromPartial({}))).toBe(false);
    expect(wantsPciNumaNodes(dedicated, undefined)).toBe(false);
    expect(wantsPciNumaNodes({ raw: vmiJson({}) }, gateOn)).toBe(false);
  });

  async function domainXml(cpu: Record<string, unknown>, options: VirtualMachineOptions | undefined) {
    const json = vmiJson(cpu);
    const flags = { ...parseFlags(['--run-root', sysfs, '--uid', 'uid-numa'], {}), allowEmulation: true };
    const facts: HostFacts = testHostFacts({
      podCpuSet: [0, 4],
      hostNumaNodes: [
        { id: 0, cpus: [0, 1], distances: { 0: 10, 1: 20 }, cpuSiblings: [] },
        { id: 1, cpus: [4, 5], distances: { 0: 20, 1: 10 }, cpuSiblings: [] },
      ],
      hostDevices: await readHostDevices(json, sysfs, ENV, wantsPciNumaNodes({ raw: json }, options), sysfs),
    });
    const vmi = parseVmiRequest(json);
    const context = buildContext(facts, vmi, options, flags, resolvePaths(flags));
    return { context, xml: (await convertVmi(vmi.raw, context)).domainXml };
  }

  const passthrough = {
    cores: 2,
    dedicatedCpuPlacement: true,
    numa: { guestMappingPassthrough: {} },
  };

  it('readHostDevices -> buildContext -> converter: each device on the expander bus of its guest cell', async () => {
    const { context, xml } = await domainXml(passthrough, gateOn);
    expect(context.pciNumaAwareTopologyEnabled).toBe(true);
    expect(context.genericHostDevices[0]?.numaNode).toBe(0);
    expect(context.gpuHostDevices[0]?.numaNode).toBe(1);
    const expanders = [
      ...xml.matchAll(
        /<controller type="pci" index="(\d+)" model="pcie-expander-bus">\s*<target busNr="\d+">\s*<node>(\d)<\/node>/g,
      ),
    ];
    expect(expanders.map((m) => m[2])).toEqual(['0', '1']);
    // The host device (host node 0) sits behind the root port on cell 0's expander, the GPU behind cell 1's.
    const portOn = (expander: string) =>
      new RegExp(
        `<controller type="pci" index="(\\d+)" model="pcie-root-port">\\s*<address type="pci" domain="0x0000" bus="${expander}"`,
      ).exec(xml)?.[1];
    const qatPort = portOn(expanders[0]![1]!);
    const gpuPort = portOn(expanders[1]![1]!);
    expect(xml).toMatch(
      new RegExp(
        `<alias name="ua-hostdevice-qat"/>\\s*<address type="pci" domain="0x0000" bus="${qatPort}" slot="0x00"`,
      ),
    );
    expect(xml).toMatch(
      new RegExp(`<alias name="ua-gpu-gpu"/>\\s*<address type="pci" domain="0x0000" bus="${gpuPort}" slot="0x00"`),
    );
  });

  it('without the gate the cluster config leaves placement to libvirt and sysfs is not read', async () => {
    const { context, xml } = await domainXml(passthrough, undefined);
    expect(context.pciNumaAwareTopologyEnabled).toBe(false);
    expect(context.genericHostDevices[0]?.numaNode).toBeUndefined();
    expect(xml).not.toContain('pcie-expander-bus');
  });
});

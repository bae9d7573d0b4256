// Issue 17, KubeVirt's PCINUMAAwareTopology placement through the launcher's own code and a real libvirtd 9.0:
// the device plugins' PCI_RESOURCE_* variables, a sysfs tree (made in a temporary directory: this host has no
// such devices, and /sys cannot be written) giving each device's numa_node, the gate in the sync's cluster config,
// readHostDevices -> buildContext -> the converter. The domain (guest NUMA passthrough over two host nodes, a
// device on each) must pass libvirt's schema and define in a private libvirtd 9.0, which keeps one
// pcie-expander-bus per guest cell with its <node>, a root port per device behind it, and each device behind its
// port. Starting it needs the devices bound to VFIO (host-devices.stack.test.ts shows that refusal).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { convertVmi } from './adapters/converter.js';
import { buildContext, type HostFacts } from './domain/sync/build-context.js';
import { wantsPciNumaNodes } from './domain/sync/host-devices/numa-nodes.js';
import { readHostDevices } from './domain/sync/host-devices/read.js';
import { parseFlags } from './flags.js';
import { VirtualMachineOptions } from './gen/kubevirt/cmd/v1/cmd.js';
import { resolvePaths } from './paths.js';
import { privateRootScript } from './testing/launcher-process.js';
import { parseVmiRequest } from './vmi.js';
import { testHostFacts } from './testing/host-facts.js';

const run = promisify(execFile);

const ENV = { PCI_RESOURCE_INTEL_COM_QAT: '0000:3d:01.0,0000:3d:02.0', PCI_RESOURCE_NVIDIA_COM_T4: '0000:af:00.0' };
const NUMA_NODE: Record<string, string> = { '0000:3d:01.0': '0', '0000:3d:02.0': '0', '0000:af:00.0': '1' };

const VMI = Buffer.from(
  JSON.stringify({
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachineInstance',
    metadata: { name: 'pcinuma', namespace: 'default', uid: 'u-pcinuma' },
    spec: {
      domain: {
        cpu: { cores: 2, dedicatedCpuPlacement: true, numa: { guestMappingPassthrough: {} } },
        memory: { hugepages: { pageSize: '2Mi' } },
        resources: { requests: { memory: '64Mi' } },
        devices: {
          autoattachGraphicsDevice: false,
          hostDevices: [
            { name: 'qat0', deviceName: 'intel.com/qat' },
            { name: 'qat1', deviceName: 'intel.com/qat' },
          ],
          gpus: [{ name: 't4', deviceName: 'nvidia.com/T4' }],
        },
      },
    },
  }),
);

describe('PCI NUMA-aware placement defines in libvirtd 9.0', () => {
  let work = '';
  let uri = '';
  let validation = '';
  let defineError = '';
  let live = '';

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'vlt-launcher-pcinuma-'));
    const sysfs = join(work, 'sys');
    for (const [address, node] of Object.entries(NUMA_NODE)) {
      await mkdir(join(sysfs, 'bus/pci/devices', address), { recursive: true });
      await writeFile(join(sysfs, 'bus/pci/devices', address, 'numa_node'), `${node}\n`);
    }
    const options = VirtualMachineOptions.fromPartial({ clusterConfig: { PCINUMAAwareTopologyEnabled: true } });
    const flags = { ...parseFlags(['--run-root', work, '--uid', 'u-pcinuma'], {}), allowEmulation: true };
    const vmi = parseVmiRequest(VMI);
    const facts: HostFacts = testHostFacts({
      nodeArch: process.arch,
      podCpuSet: [0, 4],
      hostNumaNodes: [
        { id: 0, cpus: [0, 1], distances: { 0: 10, 1: 20 }, cpuSiblings: [] },
        { id: 1, cpus: [4, 5], distances: { 0: 20, 1: 10 }, cpuSiblings: [] },
      ],
      hostDevices: await readHostDevices(VMI, work, ENV, wantsPciNumaNodes(vmi, options), sysfs),
    });
    const context = buildContext(facts, vmi, options, flags, resolvePaths(flags));
    const file = join(work, 'pcinuma.xml');
    await writeFile(file, (await convertVmi(vmi.raw, context)).domainXml);
    const checked = await run('virt-xml-validate', [file, 'domain']).catch(
      (e: { stdout: string; stderr: string }) => e,
    );
    validation = checked.stdout + checked.stderr;
    const started = await run(privateRootScript, ['libvirtd', join(work, 'root')]);
    uri = started.stdout.trim().split('\n').pop() ?? '';
    defineError = await run('virsh', ['-c', uri, 'define', file]).then(
      () => '',
      (e: { stderr: string }) => e.stderr,
    );
    if (!defineError) live = (await run('virsh', ['-c', uri, 'dumpxml', '--inactive', 'default_pcinuma'])).stdout;
  }, 180_000);

  afterAll(async () => {
    if (work) {
      await run(privateRootScript, ['stop', join(work, 'root')]).catch(() => undefined);
      await rm(work, { recursive: true, force: true });
    }
  }, 60_000);

  it('the domain passes libvirt’s schema', () => {
    expect(validation).toContain('validates');
  });

  it('libvirtd keeps an expander bus per guest cell, a root port per device on it, each device behind its port', () => {
    expect(defineError).toBe('');
    const expanders = [
      ...live.matchAll(
        /<controller type='pci' index='(\d+)' model='pcie-expander-bus'>\s*<model name='pxb-pcie'\/>\s*<target busNr='(\d+)'>\s*<node>(\d+)<\/node>/g,
      ),
    ];
    expect(expanders.map((m) => m[3])).toEqual(['0', '1']);
    // libvirt writes each bus as 0x.. hex; the converter wrote decimal controller indexes.
    const hex = (index: string) => `0x${Number(index).toString(16).padStart(2, '0')}`;
    const portsOn = (expander: string) =>
      [
        ...live.matchAll(
          new RegExp(
            `<controller type='pci' index='(\\d+)' model='pcie-root-port'>\\s*<model name='pcie-root-port'/>\\s*<target chassis='\\d+' port='0x[0-9a-f]+'/>\\s*<address type='pci' domain='0x0000' bus='${hex(expander)}'`,
            'g',
          ),
        ),
      ].map((m) => m[1]!);
    const cell0Ports = portsOn(expanders[0]![1]!);
    const cell1Ports = portsOn(expanders[1]![1]!);
    expect(cell0Ports).toHaveLength(2);
    expect(cell1Ports).toHaveLength(1);
    const busOf = (alias: string) =>
      new RegExp(
        `<alias name='${alias}'/>\\s*<address type='pci' domain='0x0000' bus='(0x[0-9a-f]+)' slot='0x00'`,
      ).exec(live)?.[1];
    expect([busOf('ua-hostdevice-qat0'), busOf('ua-hostdevice-qat1')].sort()).toEqual(cell0Ports.map(hex).sort());
    expect(busOf('ua-gpu-t4')).toBe(hex(cell1Ports[0]!));
    expect(live).toMatch(/<cell id='1' cpus='1' memory='32768' unit='KiB'/);
  });
});

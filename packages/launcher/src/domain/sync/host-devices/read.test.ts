// The whole launcher-side path without a daemon: VMI JSON + environment + network-info file in a temporary run
// root -> readHostDevices -> buildContext -> the real converter, whose domain XML must carry each <hostdev>.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { convertVmi } from '../../../adapters/converter.js';
import { parseFlags } from '../../../flags.js';
import { resolvePaths } from '../../../paths.js';
import { parseVmiRequest } from '../../../vmi.js';
import { buildContext, type HostFacts } from '../build-context.js';
import { HostDeviceError } from './errors.js';
import { readHostDevices } from './read.js';
import { testHostFacts } from '../../../testing/host-facts.js';

const UUID = 'c2177883-f1bb-47f0-914d-32a22e3a8804';

function vmiJson(devices: Record<string, unknown>, status: Record<string, unknown> = {}): Buffer {
  return Buffer.from(
    JSON.stringify({
      apiVersion: 'kubevirt.io/v1',
      kind: 'VirtualMachineInstance',
      metadata: { name: 'hd', namespace: 'default', uid: 'uid-hd' },
      spec: { domain: { resources: { requests: { memory: '64Mi' } }, devices }, networks: devices['networks'] },
      status,
    }),
  );
}

describe('readHostDevices -> buildContext -> converter', () => {
  let root = '';
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'vlt-launcher-hostdev-'));
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  async function convert(json: Buffer, env: Record<string, string>): Promise<string> {
    const flags = { ...parseFlags(['--run-root', root, '--uid', 'uid-hd'], {}), allowEmulation: true };
    const facts: HostFacts = testHostFacts({ hostDevices: await readHostDevices(json, root, env) });
    const vmi = parseVmiRequest(json);
    return (await convertVmi(vmi.raw, buildContext(facts, vmi, undefined, flags, resolvePaths(flags)))).domainXml;
  }

  it('a host device and a vGPU from the environment become <hostdev> elements', async () => {
    const xml = await convert(
      vmiJson({
        hostDevices: [{ name: 'qat', deviceName: 'intel.com/qat' }],
        gpus: [{ name: 'vgpu', deviceName: 'nvidia.com/GRID_T4-1Q' }],
      }),
      { PCI_RESOURCE_INTEL_COM_QAT: '0000:3d:01.0', 'MDEV_PCI_RESOURCE_NVIDIA_COM_GRID_T4-1Q': UUID },
    );
    expect(xml).toMatch(
      /<hostdev mode="subsystem" type="pci" managed="no">\s*<source>\s*<address domain="0x0000" bus="0x3d" slot="0x01" function="0x0"\/>\s*<\/source>\s*<alias name="ua-hostdevice-qat"\/>/,
    );
    expect(xml).toMatch(
      new RegExp(
        `<hostdev mode="subsystem" type="mdev" model="vfio-pci" display="on" ramfb="on">\\s*<source>\\s*<address uuid="${UUID}"/>\\s*</source>\\s*<alias name="ua-gpu-vgpu"/>`,
      ),
    );
  });

  it('a USB device from USB_RESOURCE_* becomes a bus/device <hostdev> with a USB controller', async () => {
    const xml = await convert(vmiJson({ hostDevices: [{ name: 'stick', deviceName: 'kubevirt.io/storage' }] }), {
      USB_RESOURCE_KUBEVIRT_IO_STORAGE: '3:12',
    });
    expect(xml).toMatch(
      /<hostdev mode="subsystem" type="usb">\s*<source>\s*<address bus="3" device="12"\/>\s*<\/source>\s*<alias name="ua-usb-host-stick"\/>/,
    );
    expect(xml).toContain('<controller type="usb" index="0" model="qemu-xhci"/>');
  });

  it('an SR-IOV NIC takes its VF from <run root>/etc/podinfo/network-info', async () => {
    await mkdir(join(root, 'etc/podinfo'), { recursive: true });
    await writeFile(
      join(root, 'etc/podinfo/network-info'),
      JSON.stringify({
        interfaces: [{ network: 'vf', deviceInfo: { type: 'pci', pci: { 'pci-address': '0000:3b:02.1' } } }],
      }),
    );
    const xml = await convert(
      vmiJson(
        {
          interfaces: [{ name: 'vf', sriov: {}, bootOrder: 3 }],
          networks: [{ name: 'vf', multus: { networkName: 'sriov-net' } }],
        },
        { interfaces: [{ name: 'vf', infoSource: 'multus-status' }] },
      ),
      {},
    );
    expect(xml).toMatch(
      /<hostdev mode="subsystem" type="pci" managed="no">\s*<source>\s*<address domain="0x0000" bus="0x3b" slot="0x02" function="0x1"\/>\s*<\/source>\s*<alias name="ua-sriov-vf"\/>\s*<boot order="3"\/>/,
    );
  });

  it('a GPU the plugins did not allocate fails the sync with the variable named', async () => {
    const json = vmiJson({ gpus: [{ name: 'g', deviceName: 'nvidia.com/T4' }] });
    await expect(readHostDevices(json, root, {})).rejects.toThrow(HostDeviceError);
    await expect(readHostDevices(json, root, {})).rejects.toThrow(
      /spec\.domain\.devices\.gpus\[0\].*PCI_RESOURCE_NVIDIA_COM_T4/,
    );
  });

  it('a VMI asking for no device reads no file and yields empty lists', async () => {
    expect(await readHostDevices(vmiJson({}), join(root, 'absent'), { PCI_RESOURCE_X: 'junk' })).toEqual({
      genericHostDevices: [],
      gpuHostDevices: [],
      sriovDevices: [],
    });
  });
});

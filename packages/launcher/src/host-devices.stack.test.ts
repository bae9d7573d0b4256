// Issue 17, host devices through the whole launcher: the device plugins' variables (PCI_RESOURCE_*,
// MDEV_PCI_RESOURCE_*, USB_RESOURCE_*) are set in the launcher's environment, as the kubelet sets them in the pod, and
// SyncVirtualMachine runs in a private root with its own libvirtd 9.0 (no /dev/kvm, emulation allowed).
// This host has no such devices: libvirt 9.0 defines a domain naming any well-formed PCI address, mdev UUID or USB bus/device
// (it does not look for the device at define), and refuses only at start, with
// "unsupported configuration: host doesn't support passthrough of host PCI devices" on a host without VFIO.
// So the test checks the defined domain's <hostdev> elements and that the failure is that start-time refusal;
// starting such a guest needs real hardware. It boots nothing, so it costs a launcher start and one define.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { convertVmi } from './adapters/converter.js';
import { connectLauncher } from './cmd-client.js';
import { NotifyStandIn, request } from './testing/handler-standin.js';
import { killGuests, killTree, startLauncherInPrivateRoot } from './testing/launcher-process.js';
import type { LauncherProcess } from './testing/launcher-process.js';
import { buildContext } from './domain/sync/build-context.js';
import { readHostDevices } from './domain/sync/host-devices/read.js';
import { parseFlags } from './flags.js';
import { resolvePaths } from './paths.js';
import { parseVmiRequest } from './vmi.js';

const UUID = 'c2177883-f1bb-47f0-914d-32a22e3a8804';
const ENV = [
  'PCI_RESOURCE_INTEL_COM_QAT=0000:3d:01.0,0000:3d:01.1,',
  `MDEV_PCI_RESOURCE_NVIDIA_COM_GRID_T4-1Q=${UUID}`,
  'USB_RESOURCE_KUBEVIRT_IO_STORAGE=3:12',
];

function vmi(gpus: Array<Record<string, unknown>>): Buffer {
  return Buffer.from(
    JSON.stringify({
      apiVersion: 'kubevirt.io/v1',
      kind: 'VirtualMachineInstance',
      metadata: { name: 'hostdev', namespace: 'default', uid: 'u-hostdev' },
      spec: {
        domain: {
          resources: { requests: { memory: '64Mi' } },
          devices: {
            hostDevices: [
              { name: 'qat', deviceName: 'intel.com/qat' },
              { name: 'stick', deviceName: 'kubevirt.io/storage' },
            ],
            gpus,
          },
        },
        terminationGracePeriodSeconds: 0,
      },
    }),
  );
}

/** A VMI with one SR-IOV NIC that Multus reported, named `sriov`. */
function sriovVmi(): Buffer {
  return Buffer.from(
    JSON.stringify({
      apiVersion: 'kubevirt.io/v1',
      kind: 'VirtualMachineInstance',
      metadata: { name: 'sriov', namespace: 'default', uid: 'u-sriov' },
      spec: {
        domain: {
          resources: { requests: { memory: '64Mi' } },
          devices: { interfaces: [{ name: 'vf', sriov: {}, bootOrder: 1 }] },
        },
        networks: [{ name: 'vf', multus: { networkName: 'sriov-net' } }],
      },
      status: { interfaces: [{ name: 'vf', infoSource: 'domain, multus-status' }] },
    }),
  );
}

/**
 * The SR-IOV half of the launcher's sync, in this process: Multus's network-info file under a run root, the
 * launcher's readHostDevices and buildContext, the converter. (The launcher in the private root reads
 * /etc/podinfo, which the private root shares with the host, so the file cannot be given to it there.)
 */
async function sriovDomainXml(runRoot: string): Promise<string> {
  await mkdir(join(runRoot, 'etc/podinfo'), { recursive: true });
  const vf = { network: 'vf', deviceInfo: { type: 'pci', version: '1.1.0', pci: { 'pci-address': '0000:3b:02.1' } } };
  await writeFile(join(runRoot, 'etc/podinfo/network-info'), JSON.stringify({ interfaces: [vf] }));
  const flags = { ...parseFlags(['--run-root', runRoot, '--uid', 'u-sriov'], {}), allowEmulation: true };
  const vmi = parseVmiRequest(sriovVmi());
  const facts = {
    nodeArch: process.arch,
    hypervisorDeviceAvailable: false,
    blockVolumes: {},
    tap0Mtu: undefined,
    containerDisks: {},
    libvirtVersion: '9.0.0',
    hostDevices: await readHostDevices(vmi.raw, runRoot, {}),
  };
  return (await convertVmi(vmi.raw, buildContext(facts, vmi, undefined, flags, resolvePaths(flags)))).domainXml;
}

interface Reply {
  success: boolean;
  message: string;
}

describe('host devices, vGPUs, USB devices and SR-IOV VFs define in libvirtd 9.0', () => {
  let root = '';
  let launcher: LauncherProcess | undefined;
  let notify: NotifyStandIn | undefined;
  let refused: Reply = { success: true, message: 'not run' };
  let refusedDomains = '';
  let synced: Reply = { success: true, message: 'not run' };
  let xml = '';
  let sriovXml = '';

  beforeAll(async () => {
    root = await mkdtemp('/tmp/vlt-launcher-hostdev-');
    notify = new NotifyStandIn();
    await notify.listen(join(root, 'run/kubevirt/domain-notify-pipe.sock'));
    const args = ['--name', 'hostdev', '--namespace', 'default', '--uid', 'u-hostdev', '--allow-emulation'];
    launcher = startLauncherInPrivateRoot(root, 'none', args, ['env', ...ENV]);
    await launcher.waitForLog('Marked as ready', 90_000);
    const uri = `qemu+unix:///system?socket=${join(root, 'run/libvirt/libvirt-sock')}`;
    const client = await connectLauncher(launcher.readySocket);
    // First a GPU whose resource no plugin allocated: refused before anything is defined.
    refused = await client.call(
      'syncVirtualMachine',
      request(vmi([{ name: 'g', deviceName: 'nvidia.com/T4' }])),
      120_000,
    );
    refusedDomains = execFileSync('virsh', ['-c', uri, 'list', '--all', '--name']).toString('utf8');
    synced = await client.call(
      'syncVirtualMachine',
      request(vmi([{ name: 'vgpu', deviceName: 'nvidia.com/GRID_T4-1Q' }])),
      120_000,
    );
    client.close();
    try {
      xml = execFileSync('virsh', ['-c', uri, 'dumpxml', '--inactive', 'default_hostdev'], {
        stdio: 'pipe',
      }).toString();
    } catch (err) {
      // Reported by the test below with the sync's reply, which says why nothing was defined.
      xml = `no domain: ${String(err)}`;
    }
    const sriovFile = join(root, 'sriov-domain.xml');
    await writeFile(sriovFile, await sriovDomainXml(join(root, 'sriov-run')));
    execFileSync('virsh', ['-c', uri, 'define', sriovFile], { stdio: 'pipe' });
    sriovXml = execFileSync('virsh', ['-c', uri, 'dumpxml', '--inactive', 'default_sriov']).toString();
  }, 240_000);

  afterAll(async () => {
    if (launcher) await killTree(launcher);
    if (root) await killGuests(root);
    notify?.close();
    if (root) await rm(root, { recursive: true, force: true });
  }, 30_000);

  it('a GPU with no allocated device fails the sync naming the field and the variables; nothing is defined', () => {
    expect(refused.success).toBe(false);
    expect(refused.message).toContain('spec.domain.devices.gpus[0]');
    expect(refused.message).toContain('PCI_RESOURCE_NVIDIA_COM_T4 is not set');
    expect(refusedDomains.trim()).toBe('');
  });

  it('the domain defines with the PCI and USB host devices and the vGPU; only the start needs real hardware', () => {
    expect(xml, `${synced.message}\n${launcher?.stderr.join('\n')}`).toContain('<domain');
    expect(xml).toMatch(
      /<hostdev mode='subsystem' type='pci' managed='no'>\s*<source>\s*<address domain='0x0000' bus='0x3d' slot='0x01' function='0x0'\/>\s*<\/source>\s*<alias name='ua-hostdevice-qat'\/>/,
    );
    expect(xml).toMatch(
      new RegExp(
        `<hostdev mode='subsystem' type='mdev' managed='no' model='vfio-pci' display='on' ramfb='on'>\\s*<source>\\s*<address uuid='${UUID}'/>\\s*</source>\\s*<alias name='ua-gpu-vgpu'/>`,
      ),
    );
    expect(xml).toMatch(
      /<hostdev mode='subsystem' type='usb' managed='no'>\s*<source>\s*<address bus='3' device='12'\/>\s*<\/source>\s*<alias name='ua-usb-host-stick'\/>/,
    );
    expect(xml).toMatch(/<controller type='usb' index='0' model='qemu-xhci'/);
    expect([...xml.matchAll(/<hostdev /g)]).toHaveLength(3);
    expect(synced.success, synced.message).toBe(false);
    expect(synced.message).toContain("host doesn't support passthrough of host PCI devices");
  });

  it('an SR-IOV NIC’s VF from the network-info file defines as a PCI host device with its boot order', () => {
    expect(sriovXml).toMatch(
      /<hostdev mode='subsystem' type='pci' managed='no'>\s*<source>\s*<address domain='0x0000' bus='0x3b' slot='0x02' function='0x1'\/>\s*<\/source>\s*<boot order='1'\/>\s*<alias name='ua-sriov-vf'\/>/,
    );
  });
});

// Issue 17, host devices through the whole launcher: the device plugins' variables (PCI_RESOURCE_*,
// MDEV_PCI_RESOURCE_*, USB_RESOURCE_*) are set in the launcher's environment, as the kubelet sets them in the pod, and
// SyncVirtualMachine runs in a private root with its own libvirtd 9.0 (no /dev/kvm, emulation allowed).
// This host has no such devices: libvirt 9.0 defines a domain naming any well-formed PCI address, mdev UUID or USB bus/device
// (it does not look for the device at define), and refuses only at start, with
// "unsupported configuration: host doesn't support passthrough of host PCI devices" on a host without VFIO.
// So the test checks the defined domain's <hostdev> elements and that the failure is that start-time refusal;
// starting such a guest needs real hardware. It boots nothing, so it costs a launcher start and one define.
// DRA resource claims: a host device's claim metadata file is put where the kubelet mounts it in the pod
// (/var/run/kubernetes.io/dra-device-attributes, ROOT/run inside the private root), and DRA GPUs (a claim and a
// claim template) go through readHostDevices -> buildContext -> the converter -> define in the same libvirtd.
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
import { testHostFacts } from './testing/host-facts.js';

const UUID = 'c2177883-f1bb-47f0-914d-32a22e3a8804';
const DRA_UUID = '6a3b1e40-0d2c-4f7e-9a51-2b8d7c0e1f23';
const DRA_BASE = 'var/run/kubernetes.io/dra-device-attributes';

/** A DRA driver's metadata file for one claim request holding one device with these string attributes. */
async function draClaimFile(base: string, claimDir: string, request: string, attrs: Record<string, string>) {
  const dir = join(base, claimDir, request);
  await mkdir(dir, { recursive: true });
  const attributes = Object.fromEntries(Object.entries(attrs).map(([k, v]) => [k, { string: v }]));
  const metadata = {
    apiVersion: 'metadata.resource.k8s.io/v1alpha1',
    kind: 'DeviceMetadata',
    requests: [{ name: request, devices: [{ driver: 'example.com', pool: 'p', name: 'd0', attributes }] }],
  };
  await writeFile(join(dir, 'example.com-metadata.json'), JSON.stringify(metadata));
}
const ENV = [
  'PCI_RESOURCE_INTEL_COM_QAT=0000:3d:01.0,0000:3d:01.1,',
  `MDEV_PCI_RESOURCE_NVIDIA_COM_GRID_T4-1Q=${UUID}`,
  'USB_RESOURCE_KUBEVIRT_IO_STORAGE=3:12',
];

/** A VMI's JSON as virt-handler sends it: 64Mi of memory, these devices, and the rest of its spec and status. */
function vmiJson(name: string, devices: object, spec: object = {}, status: object = {}): Buffer {
  const metadata = { name, namespace: 'default', uid: `u-${name}` };
  const domain = { resources: { requests: { memory: '64Mi' } }, devices };
  return Buffer.from(
    JSON.stringify({
      apiVersion: 'kubevirt.io/v1',
      kind: 'VirtualMachineInstance',
      metadata,
      spec: { domain, ...spec },
      status,
    }),
  );
}

function vmi(gpus: Array<Record<string, unknown>>): Buffer {
  const hostDevices = [
    { name: 'qat', deviceName: 'intel.com/qat' },
    { name: 'stick', deviceName: 'kubevirt.io/storage' },
    { name: 'claimed', claimName: 'devs', requestName: 'dev' },
  ];
  const spec = { resourceClaims: [{ name: 'devs', resourceClaimName: 'dev-claim' }], terminationGracePeriodSeconds: 0 };
  return vmiJson('hostdev', { hostDevices, gpus }, spec);
}

/**
 * Part of the launcher's sync in this process, for what cannot be given to the launcher in the private root (it
 * reads /etc/podinfo, which the private root shares with the host): the launcher's readHostDevices (files under
 * `runRoot`) and buildContext, then the converter.
 */
async function domainXmlInProcess(json: Buffer, runRoot: string): Promise<string> {
  const vmi = parseVmiRequest(json);
  const flags = { ...parseFlags(['--run-root', runRoot, '--uid', vmi.uid], {}), allowEmulation: true };
  const facts = testHostFacts({
    nodeArch: process.arch,
    hostDevices: await readHostDevices(vmi.raw, runRoot, {}),
  });
  return (await convertVmi(vmi.raw, buildContext(facts, vmi, undefined, flags, resolvePaths(flags)))).domainXml;
}

/** A VMI with one SR-IOV NIC that Multus reported (named `sriov`), its VF in the network-info file. */
async function sriovDomainXml(runRoot: string): Promise<string> {
  await mkdir(join(runRoot, 'etc/podinfo'), { recursive: true });
  const vf = { network: 'vf', deviceInfo: { type: 'pci', version: '1.1.0', pci: { 'pci-address': '0000:3b:02.1' } } };
  await writeFile(join(runRoot, 'etc/podinfo/network-info'), JSON.stringify({ interfaces: [vf] }));
  const json = vmiJson(
    'sriov',
    { interfaces: [{ name: 'vf', sriov: {}, bootOrder: 1 }] },
    { networks: [{ name: 'vf', multus: { networkName: 'sriov-net' } }] },
    { interfaces: [{ name: 'vf', infoSource: 'domain, multus-status' }] },
  );
  return domainXmlInProcess(json, runRoot);
}

/** DRA GPUs (named `dra`): a passthrough GPU of a claim and a vGPU of a claim template, metadata under a run root. */
async function draGpuDomainXml(runRoot: string): Promise<string> {
  const base = join(runRoot, DRA_BASE);
  await draClaimFile(base, 'resourceclaims/gpu-claim', 'pgpu', { 'resource.kubernetes.io/pciBusID': '0000:65:00.0' });
  await draClaimFile(base, 'resourceclaimtemplates/tmpl', 'vgpu', { mdevUUID: DRA_UUID });
  const gpus = [
    { name: 'pgpu', claimName: 'gpus', requestName: 'pgpu' },
    { name: 'vgpu', claimName: 'tmpl', requestName: 'vgpu' },
  ];
  const resourceClaims = [
    { name: 'gpus', resourceClaimName: 'gpu-claim' },
    { name: 'tmpl', resourceClaimTemplateName: 'vgpu-template' },
  ];
  return domainXmlInProcess(vmiJson('dra', { gpus }, { resourceClaims }), runRoot);
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
  let draXml = '';

  beforeAll(async () => {
    root = await mkdtemp('/tmp/vlt-launcher-hostdev-');
    notify = new NotifyStandIn();
    await notify.listen(join(root, 'run/kubevirt/domain-notify-pipe.sock'));
    const args = ['--name', 'hostdev', '--namespace', 'default', '--uid', 'u-hostdev', '--allow-emulation'];
    // The pod's /var/run is ROOT/run in the private root.
    await draClaimFile(join(root, 'run/kubernetes.io/dra-device-attributes'), 'resourceclaims/dev-claim', 'dev', {
      'resource.kubernetes.io/pciBusID': '0000:5e:00.0',
    });
    launcher = startLauncherInPrivateRoot(root, 'none', args, ['env', ...ENV]);
    await launcher.waitForLog('Marked as ready', 90_000);
    const uri = `qemu+unix:///system?socket=${join(root, 'run/libvirt/virtqemud-sock')}`;
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
    const draFile = join(root, 'dra-domain.xml');
    await writeFile(draFile, await draGpuDomainXml(join(root, 'dra-run')));
    execFileSync('virsh', ['-c', uri, 'define', draFile], { stdio: 'pipe' });
    draXml = execFileSync('virsh', ['-c', uri, 'dumpxml', '--inactive', 'default_dra']).toString();
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
    expect(xml).toMatch(
      /<hostdev mode='subsystem' type='pci' managed='no'>\s*<source>\s*<address domain='0x0000' bus='0x5e' slot='0x00' function='0x0'\/>\s*<\/source>\s*<alias name='ua-dra-hostdevice-claimed'\/>/,
    );
    expect([...xml.matchAll(/<hostdev /g)]).toHaveLength(4);
    expect(synced.success, synced.message).toBe(false);
    expect(synced.message).toContain("host doesn't support passthrough of host PCI devices");
  });

  it('an SR-IOV NIC’s VF from the network-info file defines as a PCI host device with its boot order', () => {
    expect(sriovXml).toMatch(
      /<hostdev mode='subsystem' type='pci' managed='no'>\s*<source>\s*<address domain='0x0000' bus='0x3b' slot='0x02' function='0x1'\/>\s*<\/source>\s*<boot order='1'\/>\s*<alias name='ua-sriov-vf'\/>/,
    );
  });

  it('DRA GPUs define: the claim’s PCI GPU without a display, the template’s vGPU with display and ramfb', () => {
    expect(draXml).toMatch(
      /<hostdev mode='subsystem' type='pci' managed='no'>\s*<source>\s*<address domain='0x0000' bus='0x65' slot='0x00' function='0x0'\/>\s*<\/source>\s*<alias name='ua-dra-gpu-pgpu'\/>/,
    );
    expect(draXml).toMatch(
      new RegExp(
        `<hostdev mode='subsystem' type='mdev' managed='no' model='vfio-pci' display='on' ramfb='on'>\\s*<source>\\s*<address uuid='${DRA_UUID}'/>\\s*</source>\\s*<alias name='ua-dra-gpu-vgpu'/>`,
      ),
    );
    expect([...draXml.matchAll(/<hostdev /g)]).toHaveLength(2);
  });
});

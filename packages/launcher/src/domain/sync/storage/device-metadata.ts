// Device metadata of a config drive (issue 17, docs/behaviour.md#preparation-before-the-first-start): a device
// the VMI tags (interfaces, host devices, GPUs) is listed in the drive's meta_data.json with the PCI address
// libvirt gave it when the domain was defined, so the guest can tell which device is which. As KubeVirt does:
// the defined domain's <interface>s are read first (type nic, with their MAC), then its <hostdev>s: an SR-IOV
// VF (alias sriov-<name>) of a tagged interface is a nic, a host device (hostdevice-<name>) or a GPU
// (gpu-<name>) a hostdev; a host device's entry carries its host NUMA node with guest NUMA passthrough, or the
// vCPUs pinned on that node's CPUs with dedicated CPUs. Disks' tags are listed by nobody, in KubeVirt too.
// KubeVirt looks a GPU's alias up among the host devices' tags (so a tagged GPU is never listed there);
// here it is looked up among the GPUs' tags, which is what the tag asks for.
import type { EphemeralDiskFace } from '../../../adapters/ephemeral-disk.js';
import { child, children, parseXml, type XmlElement } from '../../../xml/parse.js';

export type DeviceMetadata = ReturnType<EphemeralDiskFace['DeviceMetadata']['fromPartial']>;

/** The tags of a VMI's devices, by device name, and what decides the NUMA facts of a host device's entry. */
export interface DeviceTags {
  interfaces: Map<string, string>;
  hostDevices: Map<string, string>;
  gpus: Map<string, string>;
  numaPassthrough: boolean;
  dedicatedCpus: boolean;
}

/** What the host says about a PCI device: its NUMA node (none when sysfs says -1) and that node's CPUs. */
export interface HostPciFacts {
  numaNode(pciAddress: string): Promise<number | undefined>;
  nodeCpus(node: number): Promise<number[] | undefined>;
}

/** A tagged device the domain holds at no PCI address: its tag cannot be given to the guest. */
export class DeviceMetadataError extends Error {
  constructor(
    readonly field: string,
    readonly value: string,
    reason: string,
  ) {
    super(`${field}: ${JSON.stringify(value)} ${reason}`);
    this.name = 'DeviceMetadataError';
  }
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.map(obj) : []);

function tagsByName(items: Obj[]): Map<string, string> {
  const tags = new Map<string, string>();
  for (const item of items) {
    if (typeof item['name'] === 'string' && typeof item['tag'] === 'string' && item['tag'] !== '') {
      tags.set(item['name'], item['tag']);
    }
  }
  return tags;
}

/** The tags out of the request's VMI JSON (the converter reads the same document). */
export function readDeviceTags(vmiJson: Buffer): DeviceTags {
  const domain = obj(obj(obj(JSON.parse(vmiJson.toString('utf8')))['spec'])['domain']);
  const devices = obj(domain['devices']);
  const cpu = obj(domain['cpu']);
  return {
    interfaces: tagsByName(list(devices['interfaces'])),
    hostDevices: tagsByName(list(devices['hostDevices'])),
    gpus: tagsByName(list(devices['gpus'])),
    numaPassthrough: obj(cpu['numa'])['guestMappingPassthrough'] !== undefined,
    dedicatedCpus: cpu['dedicatedCpuPlacement'] === true,
  };
}

export const hasDeviceTags = (t: DeviceTags): boolean => t.interfaces.size + t.hostDevices.size + t.gpus.size > 0;

/** `0x0000`/`0x01`/`0x00`/`0x0` → `0000:01:00.0`, the form sysfs and the guest use; undefined for no PCI address. */
function pciAddress(address: XmlElement | undefined): string | undefined {
  const a = address?.attrs ?? {};
  const parts = [a['domain'], a['bus'], a['slot'], a['function']].map((p) => p?.replace(/^0x/, ''));
  if (parts.some((p) => p === undefined || !/^[0-9a-f]+$/i.test(p))) return undefined;
  const [domain, bus, slot, fn] = parts as string[];
  return `${domain}:${bus}:${slot}.${fn}`.toLowerCase();
}

function guestAddress(device: XmlElement, field: string, tag: string): { bus: string; address: string } {
  const address = child(device, 'address');
  const pci = pciAddress(address);
  if (address?.attrs['type'] !== 'pci' || pci === undefined) {
    throw new DeviceMetadataError(field, tag, 'names a device the defined domain holds at no PCI address');
  }
  return { bus: 'pci', address: pci };
}

const userAliasName = (device: XmlElement): string => (child(device, 'alias')?.attrs['name'] ?? '').replace(/^ua-/, '');

const entry = (type: 'nic' | 'hostdev', at: { bus: string; address: string }, tag: string): DeviceMetadata => ({
  type,
  ...at,
  mac: '',
  serial: '',
  numaNode: undefined,
  alignedCpus: [],
  tags: [tag],
});

/** The host NUMA facts of a host device's entry, read from its host (source) address; none when unknown. */
async function numaFacts(
  hostdev: XmlElement,
  domain: XmlElement,
  tags: DeviceTags,
  host: HostPciFacts,
): Promise<Pick<DeviceMetadata, 'numaNode' | 'alignedCpus'>> {
  const source = pciAddress(child(child(hostdev, 'source'), 'address'));
  if (source === undefined) return { numaNode: undefined, alignedCpus: [] };
  if (tags.numaPassthrough) return { numaNode: await host.numaNode(source), alignedCpus: [] };
  if (!tags.dedicatedCpus) return { numaNode: undefined, alignedCpus: [] };
  const node = await host.numaNode(source);
  const cpus = node === undefined ? undefined : await host.nodeCpus(node);
  // A vCPU is aligned when it is pinned to exactly one of the node's CPUs (KubeVirt compares the cpuset text).
  const vcpuOnCpu = new Map(
    children(child(domain, 'cputune'), 'vcpupin').map((p) => [p.attrs['cpuset'] ?? '', Number(p.attrs['vcpu'])]),
  );
  const aligned = (cpus ?? []).flatMap((cpu) => {
    const vcpu = vcpuOnCpu.get(String(cpu));
    return vcpu === undefined ? [] : [vcpu];
  });
  return { numaNode: undefined, alignedCpus: aligned };
}

/** The entries for the defined domain's XML, interfaces first, each list in the domain's order. */
export async function buildDeviceMetadata(
  domainXml: string,
  tags: DeviceTags,
  host: HostPciFacts,
): Promise<DeviceMetadata[]> {
  const domain = parseXml(domainXml);
  const devices = child(domain, 'devices');
  const out: DeviceMetadata[] = [];
  for (const nic of children(devices, 'interface')) {
    const name = userAliasName(nic);
    const tag = tags.interfaces.get(name);
    if (!name || tag === undefined) continue;
    const at = guestAddress(nic, `spec.domain.devices.interfaces[${name}].tag`, tag);
    out.push({ ...entry('nic', at, tag), mac: child(nic, 'mac')?.attrs['address'] ?? '' });
  }
  for (const hostdev of children(devices, 'hostdev')) {
    const alias = userAliasName(hostdev);
    const matches: Array<['nic' | 'hostdev', string, string | undefined]> = [
      ['nic', 'interfaces', tags.interfaces.get(alias.replace(/^sriov-/, ''))],
      ['hostdev', 'hostDevices', tags.hostDevices.get(alias.replace(/^hostdevice-/, ''))],
      ['hostdev', 'gpus', tags.gpus.get(alias.replace(/^gpu-/, ''))],
    ];
    for (const [type, listName, tag] of matches) {
      if (!alias || tag === undefined) continue;
      const at = guestAddress(hostdev, `spec.domain.devices.${listName}[${alias}].tag`, tag);
      out.push({ ...entry(type, at, tag), ...(await numaFacts(hostdev, domain, tags, host)) });
    }
  }
  return out;
}

// Boundary validation of a VMI object: shapes, enums and quantities. Each failure names the field path
// and the value, so the message points at the line a person has to fix.
import { ConversionError, quote } from '../errors.js';
import { ceilValue, isDns1123Label, isDns1123Subdomain, parseQuantity } from '@virt-launcher/shared';
import {
  INTERFACE_RULE,
  isInterfaceName,
  isPathComponent,
  LABEL_RULE,
  PATH_COMPONENT_RULE,
  SUBDOMAIN_RULE,
} from './names.js';
import { validatePortRanges } from './validate-port-ranges.js';

/** The rule disk, volume and object names are held to (see names.ts). */
interface NameRules {
  label: [(n: string) => boolean, string];
  subdomain: [(n: string) => boolean, string];
  iface: [(n: string) => boolean, string];
}

const ADMISSION: NameRules = {
  label: [isDns1123Label, LABEL_RULE],
  subdomain: [isDns1123Subdomain, SUBDOMAIN_RULE],
  iface: [isInterfaceName, INTERFACE_RULE],
};
const PATH_SAFE: NameRules = {
  label: [isPathComponent, PATH_COMPONENT_RULE],
  subdomain: [isPathComponent, PATH_COMPONENT_RULE],
  iface: [isPathComponent, PATH_COMPONENT_RULE],
};

type Obj = Record<string, unknown>;

function fail(field: string, value: unknown, what: string): never {
  throw new ConversionError(field, value, `${quote(value)} ${what}`);
}

function at(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function obj(parent: Obj, key: string, path: string, required = false): Obj | undefined {
  const v = parent[key];
  if (v === undefined || v === null) {
    if (required) throw new ConversionError(at(path, key), undefined, 'is required');
    return undefined;
  }
  if (!isObj(v)) fail(at(path, key), v, 'is not an object');
  return v;
}

function arr(parent: Obj, key: string, path: string): Obj[] {
  const v = parent[key];
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) fail(at(path, key), v, 'is not a list');
  v.forEach((item, i) => {
    if (!isObj(item)) fail(`${path}.${key}[${i}]`, item, 'is not an object');
  });
  return v as Obj[];
}

function str(parent: Obj, key: string, path: string, required = false): string | undefined {
  const v = parent[key];
  if (v === undefined || v === null) {
    if (required) throw new ConversionError(at(path, key), undefined, 'is required');
    return undefined;
  }
  if (typeof v !== 'string') fail(at(path, key), v, 'is not a string');
  if (required && v === '') fail(at(path, key), v, 'must not be empty');
  return v;
}

function oneOf(parent: Obj, key: string, path: string, allowed: readonly string[]): void {
  const v = str(parent, key, path);
  if (v !== undefined && v !== '' && !allowed.includes(v)) {
    fail(at(path, key), v, `is not one of ${allowed.join(', ')}`);
  }
}

/** The API's uint32 fields (CPU topology, thread counts): larger values never reach libvirt intact. */
export const UINT32_MAX = 2 ** 32 - 1;
/** Kubernetes quantities are int64 values (resource.Quantity.Value()). */
export const INT64_MAX = 2n ** 63n - 1n;

function count(parent: Obj, key: string, path: string, min = 0, max = UINT32_MAX): void {
  const v = parent[key];
  if (v === undefined || v === null) return;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) fail(at(path, key), v, 'is not a non-negative integer');
  if (v < min || v > max) fail(at(path, key), v, `is out of range (${min} to ${max})`);
}

/** Paths whose last component names the file the converter points libvirt at (hostDisk, kernel boot). */
function filePath(parent: Obj, key: string, path: string, required = false): void {
  const v = str(parent, key, path, required);
  if (v === undefined || (v === '' && !required)) return;
  const last = v.split('/').filter(Boolean).pop() ?? '';
  if (last === '' || last === '.' || last === '..') fail(at(path, key), v, 'does not end in a file name');
}

function name(parent: Obj, key: string, path: string, [valid, rule]: [(n: string) => boolean, string]): string {
  const v = str(parent, key, path, true) as string;
  if (!valid(v)) fail(at(path, key), v, rule);
  return v;
}

function bool(parent: Obj, key: string, path: string): void {
  const v = parent[key];
  if (v !== undefined && v !== null && typeof v !== 'boolean') fail(at(path, key), v, 'is not a boolean');
}

/** Quantities may be written as YAML numbers (memory: 1073741824) as well as strings. */
function quantity(parent: Obj, key: string, path: string): void {
  const v = parent[key];
  if (v === undefined || v === null) return;
  if (typeof v === 'number' && Number.isFinite(v) && v >= 0) {
    parent[key] = String(v);
    return quantity(parent, key, path);
  }
  const q = typeof v === 'string' ? parseQuantity(v) : undefined;
  if (!q || (v as string).startsWith('-')) fail(at(path, key), v, 'is not a quantity');
  if (ceilValue(q) > INT64_MAX) fail(at(path, key), v, 'is out of range (a quantity is at most 2^63-1)');
}

const BUSES = ['virtio', 'sata', 'scsi', 'usb'] as const;
const BINDINGS = ['masquerade', 'bridge', 'sriov', 'passt', 'passtBinding', 'binding', 'slirp', 'macvtap'] as const;
const DISK_KINDS = ['disk', 'lun', 'cdrom'] as const;
const RESOURCE_KINDS = ['requests', 'limits'] as const;
const CPU_COUNTS = ['cores', 'sockets', 'threads', 'maxSockets'];
const DEVICE_SWITCHES = [
  'autoattachGraphicsDevice',
  'autoattachSerialConsole',
  'autoattachMemBalloon',
  'disableHotplug',
  'useVirtioTransitional',
  'blockMultiQueue',
  'networkInterfaceMultiqueue',
];
const VOLUME_SOURCES = [
  'containerDisk',
  'ephemeral',
  'persistentVolumeClaim',
  'dataVolume',
  'hostDisk',
  'emptyDisk',
  'cloudInitNoCloud',
  'cloudInitConfigDrive',
  'configMap',
  'secret',
  'downwardAPI',
  'serviceAccount',
  'sysprep',
  'downwardMetrics',
  'memoryDump',
] as const;
const VOLUME_SOURCE_SET: ReadonlySet<string> = new Set(VOLUME_SOURCES);
const BINDING_SET: ReadonlySet<string> = new Set(BINDINGS);

/**
 * How many of `keys` the object sets (not undefined or null). Walks the object's own few keys rather than
 * looking up every name in the list: this runs for every volume and interface of every conversion.
 */
function countSet(o: Obj, keys: ReadonlySet<string>): number {
  let n = 0;
  for (const key in o) if (keys.has(key) && o[key] !== undefined && o[key] !== null) n++;
  return n;
}

function validateDomain(domain: Obj, rules: NameRules): void {
  const p = 'spec.domain';
  const resources = obj(domain, 'resources', p);
  for (const kind of RESOURCE_KINDS) {
    const map = resources && obj(resources, kind, `${p}.resources`);
    if (map) for (const key of Object.keys(map)) quantity(map, key, `${p}.resources.${kind}`);
  }
  const memory = obj(domain, 'memory', p);
  if (memory) {
    quantity(memory, 'guest', `${p}.memory`);
    quantity(memory, 'maxGuest', `${p}.memory`);
    const hugepages = obj(memory, 'hugepages', `${p}.memory`);
    if (hugepages) quantity(hugepages, 'pageSize', `${p}.memory.hugepages`);
  }
  const cpu = obj(domain, 'cpu', p);
  if (cpu) {
    for (const key of CPU_COUNTS) count(cpu, key, `${p}.cpu`);
    // The vCPU count is their product: libvirt keeps it in an unsigned int too.
    const product = ((cpu.cores as number) || 1) * ((cpu.sockets as number) || 1) * ((cpu.threads as number) || 1);
    if (product > UINT32_MAX) fail(`${p}.cpu`, product, `gives more than ${UINT32_MAX} vCPUs`);
    str(cpu, 'model', `${p}.cpu`);
    arr(cpu, 'features', `${p}.cpu`).forEach((f, i) => str(f, 'name', `${p}.cpu.features[${i}]`, true));
  }
  const machine = obj(domain, 'machine', p);
  if (machine) str(machine, 'type', `${p}.machine`);
  const firmware = obj(domain, 'firmware', p);
  if (firmware) {
    str(firmware, 'uuid', `${p}.firmware`);
    str(firmware, 'serial', `${p}.firmware`);
    const kernelBoot = obj(firmware, 'kernelBoot', `${p}.firmware`);
    if (kernelBoot) {
      str(kernelBoot, 'kernelArgs', `${p}.firmware.kernelBoot`);
      const container = obj(kernelBoot, 'container', `${p}.firmware.kernelBoot`);
      if (container) {
        filePath(container, 'kernelPath', `${p}.firmware.kernelBoot.container`);
        filePath(container, 'initrdPath', `${p}.firmware.kernelBoot.container`);
        // As KubeVirt's admission: a kernel-boot container must bring a kernel or an initrd to boot.
        if (!container.kernelPath && !container.initrdPath) {
          throw new ConversionError(
            `${p}.firmware.kernelBoot.container`,
            undefined,
            'must name at least one of kernelPath, initrdPath',
          );
        }
      }
    }
  }
  const ioThreads = obj(domain, 'ioThreads', p);
  if (ioThreads) count(ioThreads, 'supplementalPoolThreadCount', `${p}.ioThreads`);
  const spinlocks = obj(
    obj(obj(domain, 'features', p) ?? {}, 'hyperv', `${p}.features`) ?? {},
    'spinlocks',
    `${p}.features.hyperv`,
  );
  if (spinlocks) count(spinlocks, 'spinlocks', `${p}.features.hyperv.spinlocks`);
  validateDevices(obj(domain, 'devices', p) ?? {}, rules);
}

function validateDevices(devices: Obj, rules: NameRules): void {
  const p = 'spec.domain.devices';
  const names = new Set<string>();
  arr(devices, 'disks', p).forEach((disk, i) => {
    const dp = `${p}.disks[${i}]`;
    const diskName = name(disk, 'name', dp, rules.label);
    if (names.has(diskName)) fail(`${dp}.name`, diskName, 'is used by another disk');
    names.add(diskName);
    const kinds = DISK_KINDS.filter((k) => disk[k] !== undefined && disk[k] !== null);
    if (kinds.length > 1) fail(dp, kinds, 'sets more than one of disk, lun, cdrom');
    for (const k of kinds) {
      const dev = obj(disk, k, dp) as Obj;
      oneOf(dev, 'bus', `${dp}.${k}`, BUSES);
      bool(dev, 'readonly', `${dp}.${k}`);
      if (k === 'cdrom') oneOf(dev, 'tray', `${dp}.cdrom`, ['open', 'closed']);
    }
    // KubeVirt requires a boot order of at least 1; libvirt stores it as an unsigned int.
    count(disk, 'bootOrder', dp, 1);
    str(disk, 'serial', dp);
    oneOf(disk, 'cache', dp, ['none', 'writethrough', 'writeback']);
    oneOf(disk, 'io', dp, ['native', 'threads', 'default']);
    oneOf(disk, 'errorPolicy', dp, ['stop', 'ignore', 'report', 'enospace']);
    bool(disk, 'dedicatedIOThread', dp);
  });
  arr(devices, 'interfaces', p).forEach((iface, i) => {
    const ip = `${p}.interfaces[${i}]`;
    name(iface, 'name', ip, rules.iface);
    if (countSet(iface, BINDING_SET) > 1) {
      const bindings = BINDINGS.filter((b) => iface[b] !== undefined && iface[b] !== null);
      fail(ip, bindings, 'sets more than one binding');
    }
    if (iface.macAddress !== undefined && !/^([0-9A-Fa-f]{2}[:-]){5}[0-9A-Fa-f]{2}$/.test(String(iface.macAddress))) {
      fail(`${ip}.macAddress`, iface.macAddress, 'is not a MAC address');
    }
    count(iface, 'bootOrder', ip, 1);
    count(iface, 'acpiIndex', ip);
    str(iface, 'model', ip);
  });
  arr(devices, 'inputs', p).forEach((input, i) => {
    str(input, 'name', `${p}.inputs[${i}]`, true);
    oneOf(input, 'type', `${p}.inputs[${i}]`, ['tablet']);
    oneOf(input, 'bus', `${p}.inputs[${i}]`, ['virtio', 'usb']);
  });
  for (const key of DEVICE_SWITCHES) bool(devices, key, p);
}

function validateVolumes(spec: Obj, rules: NameRules): void {
  const seen = new Set<string>();
  arr(spec, 'volumes', 'spec').forEach((volume, i) => {
    const vp = `spec.volumes[${i}]`;
    const volumeName = name(volume, 'name', vp, rules.label);
    if (seen.has(volumeName)) fail(`${vp}.name`, volumeName, 'is used by another volume');
    seen.add(volumeName);
    if (countSet(volume, VOLUME_SOURCE_SET) !== 1) fail(vp, Object.keys(volume), 'must set exactly one volume source');
    const hostDisk = obj(volume, 'hostDisk', vp);
    if (hostDisk) {
      filePath(hostDisk, 'path', `${vp}.hostDisk`, true);
      quantity(hostDisk, 'capacity', `${vp}.hostDisk`);
    }
    const emptyDisk = obj(volume, 'emptyDisk', vp);
    if (emptyDisk) quantity(emptyDisk, 'capacity', `${vp}.emptyDisk`);
    const pvc = obj(volume, 'persistentVolumeClaim', vp);
    if (pvc) str(pvc, 'claimName', `${vp}.persistentVolumeClaim`, true);
  });
  arr(spec, 'networks', 'spec').forEach((net, i) => name(net, 'name', `spec.networks[${i}]`, rules.iface));
}

/**
 * Validates the raw object in place (numeric quantities become strings) and returns it. `admission`
 * (default) holds names to KubeVirt's admission rules; without it they need only be safe file names.
 */
export function validateVmiObject(raw: unknown, admission = true): Obj {
  const rules = admission ? ADMISSION : PATH_SAFE;
  if (!isObj(raw)) fail('input', raw, 'is not a VirtualMachineInstance object');
  const apiVersion = str(raw, 'apiVersion', '', true);
  if (apiVersion !== 'kubevirt.io/v1' && apiVersion !== 'kubevirt.io/v1alpha3') {
    fail('apiVersion', apiVersion, 'is not kubevirt.io/v1');
  }
  const kind = str(raw, 'kind', '', true);
  if (kind !== 'VirtualMachineInstance') fail('kind', kind, 'is not VirtualMachineInstance');
  const metadata = obj(raw, 'metadata', '', true) as Obj;
  name(metadata, 'name', 'metadata', rules.subdomain);
  if (metadata.namespace !== undefined && metadata.namespace !== null && metadata.namespace !== '') {
    name(metadata, 'namespace', 'metadata', rules.label);
  }
  str(metadata, 'uid', 'metadata');
  const spec = obj(raw, 'spec', '', true) as Obj;
  validateDomain(obj(spec, 'domain', 'spec', true) as Obj, rules);
  validateVolumes(spec, rules);
  validatePortRanges(spec);
  return raw;
}

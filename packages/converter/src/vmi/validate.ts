// Boundary validation of a VMI object: shapes, enums and quantities. Each failure names the field path
// and the value, so the message points at the line a person has to fix.
import { ConversionError, quote } from '../errors.js';
import { parseQuantity } from '../quantity.js';

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

function count(parent: Obj, key: string, path: string): void {
  const v = parent[key];
  if (v === undefined || v === null) return;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) fail(at(path, key), v, 'is not a non-negative integer');
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
    return;
  }
  if (typeof v !== 'string' || !parseQuantity(v) || v.startsWith('-')) fail(at(path, key), v, 'is not a quantity');
}

const BUSES = ['virtio', 'sata', 'scsi', 'usb'] as const;
const BINDINGS = ['masquerade', 'bridge', 'sriov', 'passt', 'binding', 'slirp', 'macvtap'] as const;
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

function validateDomain(domain: Obj): void {
  const p = 'spec.domain';
  const resources = obj(domain, 'resources', p);
  for (const kind of ['requests', 'limits'] as const) {
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
    for (const key of ['cores', 'sockets', 'threads', 'maxSockets']) count(cpu, key, `${p}.cpu`);
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
        str(container, 'kernelPath', `${p}.firmware.kernelBoot.container`);
        str(container, 'initrdPath', `${p}.firmware.kernelBoot.container`);
      }
    }
  }
  validateDevices(obj(domain, 'devices', p) ?? {});
}

function validateDevices(devices: Obj): void {
  const p = 'spec.domain.devices';
  const names = new Set<string>();
  arr(devices, 'disks', p).forEach((disk, i) => {
    const dp = `${p}.disks[${i}]`;
    const name = str(disk, 'name', dp, true) as string;
    if (names.has(name)) fail(`${dp}.name`, name, 'is used by another disk');
    names.add(name);
    const kinds = (['disk', 'lun', 'cdrom'] as const).filter((k) => disk[k] !== undefined && disk[k] !== null);
    if (kinds.length > 1) fail(dp, kinds, 'sets more than one of disk, lun, cdrom');
    for (const k of kinds) {
      const dev = obj(disk, k, dp) as Obj;
      oneOf(dev, 'bus', `${dp}.${k}`, BUSES);
      bool(dev, 'readonly', `${dp}.${k}`);
      if (k === 'cdrom') oneOf(dev, 'tray', `${dp}.cdrom`, ['open', 'closed']);
    }
    count(disk, 'bootOrder', dp);
    str(disk, 'serial', dp);
    oneOf(disk, 'cache', dp, ['none', 'writethrough', 'writeback']);
    oneOf(disk, 'io', dp, ['native', 'threads', 'default']);
    oneOf(disk, 'errorPolicy', dp, ['stop', 'ignore', 'report', 'enospace']);
    bool(disk, 'dedicatedIOThread', dp);
  });
  arr(devices, 'interfaces', p).forEach((iface, i) => {
    const ip = `${p}.interfaces[${i}]`;
    str(iface, 'name', ip, true);
    const bindings = BINDINGS.filter((b) => iface[b] !== undefined && iface[b] !== null);
    if (bindings.length > 1) fail(ip, bindings, 'sets more than one binding');
    if (iface.macAddress !== undefined && !/^([0-9A-Fa-f]{2}[:-]){5}[0-9A-Fa-f]{2}$/.test(String(iface.macAddress))) {
      fail(`${ip}.macAddress`, iface.macAddress, 'is not a MAC address');
    }
    count(iface, 'bootOrder', ip);
    str(iface, 'model', ip);
  });
  arr(devices, 'inputs', p).forEach((input, i) => {
    str(input, 'name', `${p}.inputs[${i}]`, true);
    oneOf(input, 'type', `${p}.inputs[${i}]`, ['tablet']);
    oneOf(input, 'bus', `${p}.inputs[${i}]`, ['virtio', 'usb']);
  });
  for (const key of [
    'autoattachGraphicsDevice',
    'autoattachSerialConsole',
    'autoattachMemBalloon',
    'disableHotplug',
    'useVirtioTransitional',
    'blockMultiQueue',
    'networkInterfaceMultiqueue',
  ]) {
    bool(devices, key, p);
  }
}

function validateVolumes(spec: Obj): void {
  const seen = new Set<string>();
  arr(spec, 'volumes', 'spec').forEach((volume, i) => {
    const vp = `spec.volumes[${i}]`;
    const name = str(volume, 'name', vp, true) as string;
    if (seen.has(name)) fail(`${vp}.name`, name, 'is used by another volume');
    seen.add(name);
    const sources = VOLUME_SOURCES.filter((s) => volume[s] !== undefined && volume[s] !== null);
    if (sources.length !== 1) fail(vp, Object.keys(volume), 'must set exactly one volume source');
    const hostDisk = obj(volume, 'hostDisk', vp);
    if (hostDisk) {
      str(hostDisk, 'path', `${vp}.hostDisk`, true);
      quantity(hostDisk, 'capacity', `${vp}.hostDisk`);
    }
    const emptyDisk = obj(volume, 'emptyDisk', vp);
    if (emptyDisk) quantity(emptyDisk, 'capacity', `${vp}.emptyDisk`);
    const pvc = obj(volume, 'persistentVolumeClaim', vp);
    if (pvc) str(pvc, 'claimName', `${vp}.persistentVolumeClaim`, true);
  });
  arr(spec, 'networks', 'spec').forEach((net, i) => str(net, 'name', `spec.networks[${i}]`, true));
}

/** Validates the raw object in place (numeric quantities become strings) and returns it. */
export function validateVmiObject(raw: unknown): Obj {
  if (!isObj(raw)) fail('input', raw, 'is not a VirtualMachineInstance object');
  const apiVersion = str(raw, 'apiVersion', '', true);
  if (apiVersion !== 'kubevirt.io/v1' && apiVersion !== 'kubevirt.io/v1alpha3') {
    fail('apiVersion', apiVersion, 'is not kubevirt.io/v1');
  }
  const kind = str(raw, 'kind', '', true);
  if (kind !== 'VirtualMachineInstance') fail('kind', kind, 'is not VirtualMachineInstance');
  const metadata = obj(raw, 'metadata', '', true) as Obj;
  str(metadata, 'name', 'metadata', true);
  str(metadata, 'namespace', 'metadata');
  str(metadata, 'uid', 'metadata');
  const spec = obj(raw, 'spec', '', true) as Obj;
  validateDomain(obj(spec, 'domain', 'spec', true) as Obj);
  validateVolumes(spec);
  return raw;
}

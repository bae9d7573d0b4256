// What goes into a cloud-init ISO: user/network data from their three possible sources, and the meta-data
// documents of the NoCloud and ConfigDrive (OpenStack) layouts.
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { InvalidRequestError, MissingCloudInitDataError } from './errors.js';
import type { CloudInitIsoRequest, CloudInitMetadata, DeviceMetadata } from './gen/virtlauncher/disk/v1/disk.js';

const STRICT_BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function decodeBase64(field: string, text: string): string {
  const compact = text.replace(/[\r\n]/g, '');
  if (compact.length % 4 !== 0 || !STRICT_BASE64.test(compact)) {
    throw new InvalidRequestError(field, 'is not valid base64 (standard alphabet, padded)');
  }
  return Buffer.from(compact, 'base64').toString('utf8');
}

/** A secret mounted as a directory: the first key that can be read wins. */
async function readSecretKey(dir: string, keys: readonly string[]): Promise<string> {
  for (const key of keys) {
    try {
      return await readFile(join(dir, key), 'utf8');
    } catch {
      // try the next spelling
    }
  }
  throw new MissingCloudInitDataError(`no ${keys.join(' or ')} key could be read in secret directory ${dir}`);
}

async function pick(
  inline: string,
  base64: string,
  base64Field: string,
  secretDir: string,
  secretKeys: readonly string[],
): Promise<string> {
  if (inline) return inline;
  if (base64) return decodeBase64(base64Field, base64);
  if (secretDir) return readSecretKey(secretDir, secretKeys);
  return '';
}

export interface CloudInitData {
  userData: string;
  networkData: string;
}

export async function resolveCloudInitData(request: CloudInitIsoRequest): Promise<CloudInitData> {
  const userData = await pick(request.userData, request.userDataBase64, 'user_data_base64', request.userDataSecretDir, [
    'userdata',
    'userData',
  ]);
  const networkData = await pick(
    request.networkData,
    request.networkDataBase64,
    'network_data_base64',
    request.networkDataSecretDir,
    ['networkdata', 'networkData'],
  );
  if (!userData && !networkData) {
    throw new MissingCloudInitDataError(
      'userDataBase64, userData, networkDataBase64 or networkData is required for a cloud-init data source',
    );
  }
  return { userData, networkData };
}

/** The VMI name up to its first dot, at most 63 characters: what KubeVirt gives the guest as hostname. */
export function defaultHostname(name: string): string {
  return (name.split('.')[0] ?? name).slice(0, 63);
}

function withDefaults(namespace: string, name: string, meta: CloudInitMetadata | undefined) {
  return {
    instanceId: meta?.instanceId || `${name}.${namespace}`,
    hostname: meta?.hostname || defaultHostname(name),
    instanceType: meta?.instanceType ?? '',
    uuid: meta?.uuid ?? '',
    publicKeys: meta?.publicKeys ?? {},
    devices: meta?.devices ?? [],
  };
}

/** NoCloud meta-data, written as JSON (a YAML subset cloud-init reads). */
export function noCloudMetaData(namespace: string, name: string, meta: CloudInitMetadata | undefined): string {
  const m = withDefaults(namespace, name, meta);
  const doc: Record<string, unknown> = {};
  if (m.instanceType) doc['instance-type'] = m.instanceType;
  doc['instance-id'] = m.instanceId;
  doc['local-hostname'] = m.hostname;
  if (Object.keys(m.publicKeys).length > 0) doc['public-keys'] = m.publicKeys;
  return JSON.stringify(doc);
}

const DEVICE_TYPES = new Set(['nic', 'hostdev']);
// The guest reads the address as sysfs names a PCI device: domain:bus:slot.function in hex.
const PCI_ADDRESS = /^[0-9a-f]{4,}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$/;

/** A device entry the guest could not use is the caller's mistake: refused naming the field, not written. */
function checkDevice(device: DeviceMetadata, i: number): void {
  const field = (name: string) => `meta_data.devices[${i}].${name}`;
  if (!DEVICE_TYPES.has(device.type))
    throw new InvalidRequestError(field('type'), `${JSON.stringify(device.type)} is not nic or hostdev`);
  if (!PCI_ADDRESS.test(device.address)) {
    throw new InvalidRequestError(
      field('address'),
      `${JSON.stringify(device.address)} is not a PCI address like 0000:01:00.0`,
    );
  }
  if (device.tags.length === 0 || device.tags.some((t) => t === '')) {
    throw new InvalidRequestError(field('tags'), 'a listed device carries at least one non-empty tag');
  }
}

function deviceJson(device: DeviceMetadata, i: number): Record<string, unknown> {
  checkDevice(device, i);
  const doc: Record<string, unknown> = { type: device.type, bus: device.bus, address: device.address };
  if (device.mac) doc['mac'] = device.mac;
  if (device.serial) doc['serial'] = device.serial;
  // KubeVirt leaves node 0 out as well (its field is omitted when zero): the guest sees the same document.
  if (device.numaNode) doc['numaNode'] = device.numaNode;
  if (device.alignedCpus.length > 0) doc['alignedCPUs'] = device.alignedCpus;
  doc['tags'] = device.tags;
  return doc;
}

/** openstack/latest/meta_data.json of a ConfigDrive. */
export function configDriveMetaData(namespace: string, name: string, meta: CloudInitMetadata | undefined): string {
  const m = withDefaults(namespace, name, meta);
  const doc: Record<string, unknown> = {};
  if (m.instanceType) doc['instance_type'] = m.instanceType;
  doc['instance_id'] = m.instanceId;
  doc['hostname'] = m.hostname;
  doc['uuid'] = m.uuid || randomUUID();
  if (m.devices.length > 0) doc['devices'] = m.devices.map((d, i) => deviceJson(d, i));
  if (Object.keys(m.publicKeys).length > 0) doc['public_keys'] = m.publicKeys;
  return JSON.stringify(doc);
}

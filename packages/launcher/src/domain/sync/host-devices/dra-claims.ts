// Which device a DRA claim request got, from the metadata files the DRA drivers leave in the pod (KEP-5304):
//   <base>/resourceclaims/<resourceClaimName>/<requestName>/<driver>-metadata.json   (a claim made beforehand)
//   <base>/resourceclaimtemplates/<claim's name>/<requestName>/<driver>-metadata.json (a claim from a template)
// where the claim is the VMI's `spec.resourceClaims[]` entry the device names. As in KubeVirt, a request has
// exactly one driver and one device, and a mediated device's UUID wins over the PCI address its parent exposes.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isMdevUuid, isPciAddress } from './addresses.js';
import {
  MDEV_UUID_ATTRIBUTE,
  PCI_BUS_ID_ATTRIBUTE,
  parseDraMetadata,
  stringAttribute,
  type DraMetadata,
} from './dra-metadata.js';
import { HostDeviceError } from './errors.js';

/** Where the drivers' metadata is mounted in the pod (joined under the launcher's run root). */
export const DRA_METADATA_BASE = '/var/run/kubernetes.io/dra-device-attributes';

/** One `spec.resourceClaims[]` entry as the VMI JSON spells it. */
export interface ResourceClaimRef {
  name?: unknown;
  resourceClaimName?: unknown;
  resourceClaimTemplateName?: unknown;
}

export type ClaimedDevice = { kind: 'mdev'; uuid: string } | { kind: 'pci'; address: string };

/**
 * The claim and request names of a device or network that takes its device from a DRA claim; a missing or empty
 * one is refused naming `<field>.claimName` or `<field>.requestName`, with `why` as the reason.
 */
export function claimRequestNames(
  source: { claimName?: unknown; requestName?: unknown },
  field: string,
  why: string,
): { claimName: string; requestName: string } {
  for (const key of ['claimName', 'requestName'] as const) {
    const value = source[key];
    if (typeof value !== 'string' || value === '') {
      throw new HostDeviceError(`${field}.${key}`, 'spec', JSON.stringify(value ?? null), why);
    }
  }
  return { claimName: source.claimName as string, requestName: source.requestName as string };
}

/** A Kubernetes object or request name: the only names that can be a directory the kubelet made, never `..`. */
const K8S_NAME = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;

function pathName(value: string, field: string, what: string): string {
  if (K8S_NAME.test(value)) return value;
  throw new HostDeviceError(field, 'spec', value, `is not a Kubernetes ${what} name (lower-case DNS name)`);
}

/** The directory holding the request's metadata file. `field` is the device's VMI field. */
function requestDir(
  base: string,
  claims: ResourceClaimRef[],
  claimName: string,
  requestName: string,
  field: string,
): string {
  const index = claims.findIndex((c) => c.name === claimName);
  const claim = claims[index];
  if (claim === undefined) {
    throw new HostDeviceError(`${field}.claimName`, 'spec.resourceClaims', claimName, 'names no resource claim');
  }
  const request = pathName(requestName, `${field}.requestName`, 'request');
  const own = claim.resourceClaimName;
  if (typeof own === 'string' && own !== '') {
    const name = pathName(own, `spec.resourceClaims[${index}].resourceClaimName`, 'resource claim');
    return join(base, 'resourceclaims', name, request);
  }
  const name = pathName(claimName, `${field}.claimName`, 'claim');
  return join(base, 'resourceclaimtemplates', name, request);
}

/** The request's one metadata file, parsed. */
async function readMetadata(dir: string, field: string): Promise<{ path: string; metadata: DraMetadata }> {
  const names = (await readdir(dir).catch(() => [] as string[])).filter((n) => n.endsWith('-metadata.json')).sort();
  if (names.length !== 1) {
    const why =
      names.length === 0
        ? 'the DRA driver left no device metadata (*-metadata.json) for this claim request'
        : `${names.length} drivers left metadata for this claim request; exactly one device of one driver is supported`;
    throw new HostDeviceError(field, dir, names.join(', '), why);
  }
  const path = join(dir, names[0] ?? '');
  const text = await readFile(path, 'utf8').catch((err: Error) => {
    throw new HostDeviceError(field, path, '', `cannot read the device metadata: ${err.message}`);
  });
  try {
    return { path, metadata: parseDraMetadata(text) };
  } catch (err) {
    throw new HostDeviceError(field, path, '', `unreadable device metadata: ${(err as Error).message}`);
  }
}

/**
 * The one device the claim request got: its mdev UUID if it has one, else its PCI address, shape-checked. With
 * `pciOnly` (an SR-IOV VF) only the PCI address counts.
 */
async function resolve(
  base: string,
  claims: ResourceClaimRef[],
  claimName: string,
  requestName: string,
  field: string,
  pciOnly: boolean,
): Promise<ClaimedDevice> {
  const { path, metadata } = await readMetadata(requestDir(base, claims, claimName, requestName, field), field);
  const request = metadata.requests.find((r) => r.name === requestName);
  if (request === undefined) {
    const known = metadata.requests.map((r) => r.name).join(', ');
    throw new HostDeviceError(field, path, requestName, `the metadata has no such request (it has: ${known})`);
  }
  const [device, ...more] = request.devices;
  if (device === undefined || more.length > 0) {
    const why = `request has ${request.devices.length} devices; exactly one device per request is supported`;
    throw new HostDeviceError(field, path, requestName, why);
  }
  const uuid = pciOnly ? undefined : stringAttribute(device, MDEV_UUID_ATTRIBUTE);
  if (uuid !== undefined) {
    if (!isMdevUuid(uuid)) throw new HostDeviceError(field, path, uuid, 'the mdevUUID is not a mediated device UUID');
    return { kind: 'mdev', uuid };
  }
  const address = stringAttribute(device, PCI_BUS_ID_ATTRIBUTE);
  if (address === undefined) {
    throw new HostDeviceError(
      field,
      path,
      '',
      pciOnly
        ? `the device has no ${PCI_BUS_ID_ATTRIBUTE}`
        : `the device has neither ${MDEV_UUID_ATTRIBUTE} nor ${PCI_BUS_ID_ATTRIBUTE}`,
    );
  }
  if (!isPciAddress(address)) throw new HostDeviceError(field, path, address, 'the pciBusID is not a PCI address');
  return { kind: 'pci', address };
}

/** A GPU's or host device's claimed device: a mediated device (UUID) or a PCI device. */
export function claimedDevice(
  base: string,
  claims: ResourceClaimRef[],
  claimName: string,
  requestName: string,
  field: string,
): Promise<ClaimedDevice> {
  return resolve(base, claims, claimName, requestName, field, false);
}

/** An SR-IOV VF's claimed PCI address (a mediated-device UUID in the same metadata is not looked at). */
export async function claimedPciAddress(
  base: string,
  claims: ResourceClaimRef[],
  claimName: string,
  requestName: string,
  field: string,
): Promise<string> {
  const found = await resolve(base, claims, claimName, requestName, field, true);
  return found.kind === 'pci' ? found.address : found.uuid;
}

// GPUs and host devices the VMI takes from Kubernetes DRA resource claims (`claimName`/`requestName` instead of a
// device plugin's `deviceName`), built as KubeVirt's launcher builds them: one device per entry, in VMI order,
// aliased `dra-gpu-<name>` / `dra-hostdevice-<name>`; a vGPU shows a display as the VMI's display options say,
// and the first vGPU gets one (with ramfb) when no GPU set any; a PCI device never shows one.
import { claimedDevice, claimRequestNames, type ResourceClaimRef } from './dra-claims.js';
import { isDraRequest, mdevDisplay, type DeviceRequest } from './device-plugins.js';
import { HostDeviceError } from './errors.js';
import { hostDevice, type WireHostDevice } from './wire.js';

export const DRA_GPU_ALIAS_PREFIX = 'dra-gpu-';
export const DRA_HOST_DEVICE_ALIAS_PREFIX = 'dra-hostdevice-';

export interface DraLists {
  genericHostDevices: WireHostDevice[];
  gpuHostDevices: WireHostDevice[];
}

/** Name, claim and request of a DRA entry; an incomplete claim request is refused naming the missing field. */
function checked(d: DeviceRequest, field: string): { name: string; claim: string; request: string } {
  if (typeof d.name !== 'string' || d.name === '') {
    throw new HostDeviceError(`${field}.name`, 'spec', JSON.stringify(d.name ?? null), 'a device needs a name');
  }
  const why = `${d.name} has an incomplete claim request: a DRA device needs both claimName and requestName`;
  const { claimName, requestName } = claimRequestNames(d, field, why);
  return { name: d.name, claim: claimName, request: requestName };
}

async function listFromClaims(
  list: DeviceRequest[],
  listField: string,
  aliasPrefix: string,
  gpu: boolean,
  claims: ResourceClaimRef[],
  base: string,
): Promise<WireHostDevice[]> {
  const devices: WireHostDevice[] = [];
  const seen = new Map<string, string>();
  for (const [i, d] of list.entries()) {
    if (!isDraRequest(d)) continue;
    const field = `${listField}[${i}]`;
    const { name, claim, request } = checked(d, field);
    // Two entries of one claim request would pass one device to the guest twice.
    const pair = `${claim}/${request}`;
    const first = seen.get(pair);
    if (first !== undefined) throw new HostDeviceError(field, 'spec', pair, `${first} takes the same claim request`);
    seen.set(pair, field);
    const found = await claimedDevice(base, claims, claim, request, field);
    const alias = `${aliasPrefix}${name}`;
    devices.push(
      found.kind === 'mdev'
        ? hostDevice({
            type: 'mdev',
            alias,
            mdevUuid: found.uuid,
            ...(gpu ? mdevDisplay(d.virtualGPUOptions?.display) : {}),
          })
        : hostDevice({ type: 'pci', alias, pciAddress: found.address }),
    );
  }
  return devices;
}

/** The VMI's DRA GPUs and host devices, read from the drivers' metadata under `base`. */
export async function devicesFromClaims(
  spec: { gpus: DeviceRequest[]; hostDevices: DeviceRequest[]; resourceClaims: ResourceClaimRef[] },
  base: string,
): Promise<DraLists> {
  const gpus = await listFromClaims(
    spec.gpus,
    'spec.domain.devices.gpus',
    DRA_GPU_ALIAS_PREFIX,
    true,
    spec.resourceClaims,
    base,
  );
  const firstMdev = gpus.find((d) => d.type === 'mdev');
  if (firstMdev && spec.gpus.every((g) => g.virtualGPUOptions?.display === undefined)) {
    firstMdev.display = true;
    firstMdev.ramfb = true;
  }
  const genericHostDevices = await listFromClaims(
    spec.hostDevices,
    'spec.domain.devices.hostDevices',
    DRA_HOST_DEVICE_ALIAS_PREFIX,
    false,
    spec.resourceClaims,
    base,
  );
  return { genericHostDevices, gpuHostDevices: gpus };
}

// The converter context's three host-device lists for one VMI, from what the pod was given: the device plugins'
// environment variables and Multus's network-info file. Pure: the caller reads the environment and the file.
import type { ConverterContext } from '../../../adapters/converter.js';
import { devicesFromPlugins, type DeviceRequest } from './device-plugins.js';
import type { ResourceClaimRef } from './dra-claims.js';
import type { NetworkRequest } from './dra-sriov.js';
import type { Env } from './address-pool.js';
import { NETWORK_INFO_PATH, sriovDevices, sriovInterfaces } from './sriov.js';
import type { InterfaceRequest, InterfaceStatus } from './sriov.js';

export type HostDeviceLists = Pick<ConverterContext, 'genericHostDevices' | 'gpuHostDevices' | 'sriovDevices'>;

/** The parts of the VMI JSON these lists are decided from. */
export interface HostDeviceSpec {
  hostDevices: DeviceRequest[];
  gpus: DeviceRequest[];
  interfaces: InterfaceRequest[];
  interfaceStatuses: InterfaceStatus[];
  /** `spec.resourceClaims`: the DRA claims a GPU, host device or network may name (dra-devices.ts, dra-sriov.ts). */
  resourceClaims: ResourceClaimRef[];
  /** `spec.networks`: an SR-IOV interface's network may be a DRA claim (dra-sriov.ts). */
  networks: NetworkRequest[];
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const arr = (v: unknown): Obj[] => (Array.isArray(v) ? v.map(obj) : []);

export function hostDeviceSpec(vmiJson: Buffer): HostDeviceSpec {
  const doc = obj(JSON.parse(vmiJson.toString('utf8')));
  const devices = obj(obj(obj(doc.spec).domain).devices);
  return {
    hostDevices: arr(devices.hostDevices),
    gpus: arr(devices.gpus),
    interfaces: arr(devices.interfaces),
    interfaceStatuses: arr(obj(doc.status).interfaces),
    resourceClaims: arr(obj(doc.spec).resourceClaims),
    networks: arr(obj(doc.spec).networks),
  };
}

/** Whether the network-info file must be read (only a VMI with a reported SR-IOV interface needs it). */
export function needsNetworkInfo(spec: HostDeviceSpec): boolean {
  return sriovInterfaces(spec.interfaces, spec.interfaceStatuses).length > 0;
}

export function hostDeviceLists(
  spec: HostDeviceSpec,
  env: Env,
  networkInfo: string | undefined,
  networkInfoPath = NETWORK_INFO_PATH,
): HostDeviceLists {
  return {
    genericHostDevices: devicesFromPlugins(spec.hostDevices, env, {
      listField: 'spec.domain.devices.hostDevices',
      aliasPrefix: 'hostdevice-',
      gpu: false,
      usb: true,
    }),
    gpuHostDevices: devicesFromPlugins(spec.gpus, env, {
      listField: 'spec.domain.devices.gpus',
      aliasPrefix: 'gpu-',
      gpu: true,
      usb: false,
    }),
    sriovDevices: sriovDevices(sriovInterfaces(spec.interfaces, spec.interfaceStatuses), networkInfo, networkInfoPath),
  };
}

// `spec.domain.devices.hostDevices` and `gpus` resolved against the device plugins' environment variables, as
// KubeVirt's launcher does: every device of a list first tries the PCI pool of its resource, then every device the
// mediated-device pool (and, for host devices, the USB pool); the list comes out PCI devices first, then mdevs, then USB.
// Unlike KubeVirt, which only compares counts, each device must get exactly one address, and the address must
// have its exact shape: a device the VMI asked for is never silently missing or doubled.
import {
  MDEV_PREFIX,
  PCI_PREFIX,
  USB_PREFIX,
  isMdevUuid,
  isPciAddress,
  isResourceName,
  isUsbAddress,
} from './addresses.js';
import { AddressPool, type Env, type PopResult } from './address-pool.js';
import { HostDeviceError } from './errors.js';
import { hostDevice, type WireHostDevice } from './wire.js';

/** `virtualGPUOptions.display` of a GPU; absent fields keep KubeVirt's defaults (both on). */
export interface DisplayOptions {
  enabled?: boolean;
  ramFB?: { enabled?: boolean };
}

/** One entry of `hostDevices` or `gpus`, as the VMI JSON spells it. */
export interface DeviceRequest {
  name?: unknown;
  deviceName?: unknown;
  claimName?: unknown;
  requestName?: unknown;
  virtualGPUOptions?: { display?: DisplayOptions };
}

interface Checked {
  field: string;
  name: string;
  resource: string;
  display?: DisplayOptions;
}

/**
 * A device from a DRA resource claim (dra-devices.ts) rather than a device plugin: a claim or request name and no
 * `deviceName`, as KubeVirt tells them apart.
 */
export function isDraRequest(d: DeviceRequest): boolean {
  return (
    (d.deviceName === undefined || d.deviceName === '') && (d.claimName !== undefined || d.requestName !== undefined)
  );
}

function check(list: DeviceRequest[], listField: string, gpu: boolean): Checked[] {
  return list.flatMap((d, i) => {
    if (isDraRequest(d)) return [];
    const field = `${listField}[${i}]`;
    if (typeof d.name !== 'string' || d.name === '') {
      throw new HostDeviceError(`${field}.name`, 'spec', JSON.stringify(d.name ?? null), 'a device needs a name');
    }
    const name = d.name;
    if (d.claimName !== undefined || d.requestName !== undefined) {
      // KubeVirt's admission refuses this too: the device would come from two places.
      throw new HostDeviceError(
        `${field}.claimName`,
        'spec',
        String(d.claimName ?? d.requestName),
        'a device names either a deviceName (device plugin) or a DRA claim request, not both',
      );
    }
    if (typeof d.deviceName !== 'string' || !isResourceName(d.deviceName)) {
      const value = typeof d.deviceName === 'string' ? d.deviceName : JSON.stringify(d.deviceName ?? null);
      throw new HostDeviceError(
        `${field}.deviceName`,
        'spec',
        value,
        'is not a resource name a device plugin can provide (vendor.example/name)',
      );
    }
    // Only a GPU has display options; a host device never shows one, whatever its JSON carries.
    return [{ field, name, resource: d.deviceName, display: gpu ? d.virtualGPUOptions?.display : undefined }];
  });
}

/** A PCI GPU shows a display only when asked explicitly (it may be plain passthrough); ramfb then defaults on. */
function pciDisplay(display: DisplayOptions | undefined): Pick<WireHostDevice, 'display' | 'ramfb'> {
  if (display?.enabled !== true) return { display: false, ramfb: false };
  return { display: true, ramfb: display.ramFB?.enabled !== false };
}

/** A vGPU's display defaults on once `display` is given at all (device plugins and DRA claims alike). */
export function mdevDisplay(display: DisplayOptions | undefined): Pick<WireHostDevice, 'display' | 'ramfb'> {
  if (display === undefined || display.enabled === false) return { display: false, ramfb: false };
  return { display: true, ramfb: display.ramFB?.enabled !== false };
}

type Kind = 'pci' | 'mdev' | 'usb';

interface Found {
  request: Checked;
  kind: Kind;
  envVar: string;
  address: string;
}

function popAll(requests: Checked[], pool: AddressPool, kind: Kind): { found: Found[]; outcomes: PopResult[] } {
  const found: Found[] = [];
  const outcomes = requests.map((request) => {
    const result = pool.pop(request.resource);
    if (result.kind === 'address') {
      found.push({ request, kind, envVar: pool.envVar(request.resource), address: result.address });
    }
    return result;
  });
  return { found, outcomes };
}

const SHAPES: Record<Kind, { test: (value: string) => boolean; what: string }> = {
  pci: { test: isPciAddress, what: 'a PCI address (0000:81:01.0)' },
  mdev: { test: isMdevUuid, what: 'a mediated device UUID' },
  usb: { test: isUsbAddress, what: 'a USB bus:device pair (1:5)' },
};

function validate(f: Found): void {
  const shape = SHAPES[f.kind];
  if (shape.test(f.address)) return;
  throw new HostDeviceError(f.request.field, f.envVar, f.address, `the device plugin's address is not ${shape.what}`);
}

function toWire(f: Found, aliasPrefix: string): WireHostDevice {
  const { name, display } = f.request;
  if (f.kind === 'pci') {
    return hostDevice({ type: 'pci', alias: `${aliasPrefix}${name}`, pciAddress: f.address, ...pciDisplay(display) });
  }
  if (f.kind === 'mdev') {
    return hostDevice({ type: 'mdev', alias: `${aliasPrefix}${name}`, mdevUuid: f.address, ...mdevDisplay(display) });
  }
  // KubeVirt names a USB host device usb-host-<name>, whichever list it came from.
  const [bus = '', device = ''] = f.address.split(':');
  return hostDevice({ type: 'usb', alias: `usb-host-${name}`, usbBus: bus, usbDevice: device });
}

/** Why a device got no address: names every variable that was looked at and what was in it. */
function missing(request: Checked, pools: AddressPool[], outcomes: PopResult[][], index: number): HostDeviceError {
  const tried = pools.map((pool, p) => {
    const outcome = outcomes[p]?.[index]?.kind === 'exhausted' ? 'has no address left' : 'is not set';
    return `${pool.envVar(request.resource)} ${outcome}`;
  });
  return new HostDeviceError(
    request.field,
    pools.map((p) => p.envVar(request.resource)).join(', '),
    '',
    `no device allocated for resource ${JSON.stringify(request.resource)}: ${tried.join('; ')}`,
  );
}

export interface ListOptions {
  listField: string;
  aliasPrefix: string;
  /** GPUs read display options, and the first vGPU gets a display (and ramfb) when no GPU configured one. */
  gpu: boolean;
  /** Host devices may also be USB devices (USB_RESOURCE_*). */
  usb: boolean;
}

export function devicesFromPlugins(list: DeviceRequest[], env: Env, options: ListOptions): WireHostDevice[] {
  const requests = check(list, options.listField, options.gpu);
  if (requests.length === 0) return [];
  const resources = new Set(requests.map((r) => r.resource));
  const pools = [new AddressPool(PCI_PREFIX, resources, env), new AddressPool(MDEV_PREFIX, resources, env)];
  if (options.usb) pools.push(new AddressPool(USB_PREFIX, resources, env));
  const kinds: Kind[] = ['pci', 'mdev', 'usb'];
  const rounds = pools.map((pool, p) => popAll(requests, pool, kinds[p] ?? 'pci'));
  const found = rounds.flatMap((r) => r.found);
  requests.forEach((request, i) => {
    const mine = found.filter((f) => f.request === request);
    if (mine.length === 0) {
      throw missing(
        request,
        pools,
        rounds.map((r) => r.outcomes),
        i,
      );
    }
    if (mine.length > 1) {
      throw new HostDeviceError(
        request.field,
        mine.map((f) => f.envVar).join(', '),
        mine.map((f) => f.address).join(', '),
        `resource ${JSON.stringify(request.resource)} was allocated by more than one device plugin`,
      );
    }
  });
  found.forEach(validate);
  const devices = found.map((f) => toWire(f, options.aliasPrefix));
  const firstMdev = devices.find((d) => d.type === 'mdev');
  if (options.gpu && firstMdev && requests.every((r) => r.display === undefined)) {
    firstMdev.display = true;
    firstMdev.ramfb = true;
  }
  return devices;
}

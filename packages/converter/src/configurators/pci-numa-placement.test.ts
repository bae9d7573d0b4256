// KubeVirt's pci-placement_test.go cases (expander bus assigner), run through this step on a domain that
// already has its guest NUMA cells and vCPU pins. The host is the Go test's mocked sysfs: PCI devices on
// buses 01, 03, 05 are on host node 0 (CPUs 0-3), 02 and 04 on node 1 (CPUs 4-7); guest cell 0 holds
// vCPUs 0-1, cell 1 vCPUs 2-3; vCPU 0 runs on host CPU 0 and vCPU 2 on host CPU 4.
import { describe, expect, it } from 'vitest';
import { resolveContext } from '../context/resolve.js';
import { emptyDomain, type Domain, type HostDevice as DomainHostDevice } from '../domain/types.js';
import { ConversionError } from '../errors.js';
import { ConverterContext, HostDevice } from '../gen/virtlauncher/converter/v1/converter.js';
import { vmi } from '../testing/fixture.js';
import { thrownBy } from '../testing/golden.js';
import type { VirtualMachineInstance } from '../vmi/types.js';
import { hostDevices } from './host-devices.js';
import { parseCpuList } from './pci-numa-cells.js';
import { currentControllerIndex, pciNumaPlacement } from './pci-numa-placement.js';

const HOST_NODE_OF_BUS: Record<string, number> = { '01': 0, '02': 1, '03': 0, '04': 1, '05': 0 };
const HOST_NODES = [
  { id: 0, cpus: [0, 1, 2, 3], distances: {}, cpuSiblings: [] },
  { id: 1, cpus: [4, 5, 6, 7], distances: {}, cpuSiblings: [] },
];
const CELLS = [
  { id: 0, cpus: '0-1' },
  { id: 1, cpus: '2-3' },
];
const PINS = [
  { vcpu: 0, cpuset: '0' },
  { vcpu: 2, cpuset: '4' },
];

/** A PCI device on host bus `bus` (slot 0), with the mocked host NUMA node unless `noNode`. */
function device(name: string, bus: string, extra: Partial<HostDevice> & { noNode?: boolean } = {}): HostDevice {
  const { noNode, ...fields } = extra;
  return HostDevice.fromPartial({
    type: 'pci',
    alias: `hostdevice-${name}`,
    pciAddress: `0000:${bus}:00.0`,
    numaNode: noNode ? undefined : HOST_NODE_OF_BUS[bus],
    ...fields,
  });
}

interface Setup {
  devices: HostDevice[];
  cells?: { id: number; cpus: string }[];
  pins?: { vcpu: number; cpuset: string }[];
  memnodes?: { cellid: number; nodeset: string }[];
  strict?: boolean;
  controllers?: Domain['devices']['controllers'];
  gate?: boolean;
  arch?: string;
}

function testVmi(s: Setup): VirtualMachineInstance {
  return vmi({
    cpu: { cores: 4, dedicatedCpuPlacement: true, ...(s.strict ? { numa: { guestMappingPassthrough: {} } } : {}) },
    devices: {
      hostDevices: s.devices.map((d) =>
        d.alias.startsWith('dra-')
          ? { name: d.alias.slice('dra-hostdevice-'.length), claimName: 'c', requestName: 'r' }
          : { name: d.alias.slice('hostdevice-'.length), deviceName: 'x/y' },
      ),
    },
  });
}

function place(s: Setup): Domain {
  const v = testVmi(s);
  const ctx = resolveContext(
    ConverterContext.fromPartial({
      architecture: s.arch ?? 'amd64',
      genericHostDevices: s.devices,
      hostNumaNodes: HOST_NODES,
      pciNumaAwareTopologyEnabled: s.gate ?? true,
    }),
    v,
  );
  const domain = emptyDomain();
  hostDevices.configure(v, domain, ctx);
  const cells = s.cells ?? CELLS;
  if (cells.length > 0) {
    domain.cpu = {
      mode: 'host-model',
      topology: { sockets: 1, cores: 4, threads: 1 },
      features: [],
      numaCells: cells.map((c) => ({ ...c, memoryKiB: 1024n })),
    };
  }
  const pins = s.pins ?? PINS;
  if (pins.length > 0) domain.cputune = { vcpupins: pins, iothreadpins: [] };
  if (s.memnodes) {
    domain.numatune = {
      memory: { mode: 'strict', nodeset: '0-1' },
      memnodes: s.memnodes.map((m) => ({ ...m, mode: 'strict' })),
    };
  }
  domain.devices.controllers.push(...(s.controllers ?? []));
  pciNumaPlacement.configure(v, domain, ctx);
  return domain;
}

const models = (d: Domain) => d.devices.controllers.map((c) => c.model);
const count = (d: Domain, model: string) => models(d).filter((m) => m === model).length;
const guestAddress = (bus: string) => ({ type: 'pci', domain: '0x0000', bus, slot: '0x00', function: '0x0' });
const hostdevOf = (d: Domain, name: string): DomainHostDevice =>
  d.devices.hostdevs.find((h) => h.alias?.name === `ua-hostdevice-${name}`)!;

function refusal(s: Setup): ConversionError {
  const error = thrownBy(() => place(s));
  expect(error).toBeInstanceOf(ConversionError);
  return error as ConversionError;
}

describe('currentControllerIndex (getCurrentControllerIndex)', () => {
  it('is the highest index of the existing controllers', () => {
    const domain = emptyDomain();
    domain.devices.controllers.push(
      { type: 'pci', index: 0, model: 'pcie-root' },
      { type: 'pci', index: 4, model: 'pcie-root-port' },
    );
    expect(currentControllerIndex(domain)).toBe(4);
  });
});

describe('PCI NUMA placement: which devices are placed (addDevices)', () => {
  it('takes PCI devices only', () => {
    const usb = HostDevice.fromPartial({ type: 'usb', alias: 'hostdevice-usb', usbVendor: '0x1', usbProduct: '0x2' });
    const d = place({ devices: [device('pci1', '01'), usb, device('pci2', '02')] });
    expect(d.devices.hostdevs.filter((h) => h.address)).toHaveLength(2);
    expect(d.devices.hostdevs.find((h) => h.type === 'usb')?.address).toBeUndefined();
  });
  it('keeps a device that already has a guest PCI address where it is', () => {
    const d = place({ devices: [device('pci1', '01'), device('pci2', '02', { guestPciAddress: '0000:00:07.0' })] });
    expect(hostdevOf(d, 'pci2').address).toEqual({ ...guestAddress('0x00'), slot: '0x07' });
    expect(count(d, 'pcie-root-port')).toBe(1);
  });
  it('places nothing without guest NUMA cells or vCPU pins', () => {
    const d = place({ devices: [device('pci1', '01')], cells: [], pins: [] });
    expect(d.devices.controllers).toEqual([]);
    expect(hostdevOf(d, 'pci1').address).toBeUndefined();
  });
  it('places every PCI device with a host NUMA node', () => {
    const d = place({ devices: [device('device1', '01'), device('device2', '02')] });
    expect(d.devices.hostdevs.every((h) => h.address)).toBe(true);
  });
});

describe('PCI NUMA placement: topology (PlaceNumaAlignedDevices)', () => {
  it.each([
    ['no devices', [], 0, 0, 0],
    ['one device', [device('device1', '01')], 2, 1, 1],
    ['two devices on one node', [device('device1', '01'), device('device2', '03')], 3, 1, 2],
    ['two devices on two nodes', [device('numa0', '01'), device('numa1', '02')], 4, 2, 2],
  ])('%s', (_name, devices, controllers, expanders, ports) => {
    const d = place({ devices });
    expect(d.devices.controllers).toHaveLength(controllers);
    expect(count(d, 'pcie-expander-bus')).toBe(expanders);
    expect(count(d, 'pcie-root-port')).toBe(ports);
  });
  it('adds nothing without guest NUMA topology', () => {
    expect(place({ devices: [device('device1', '01')], cells: [], pins: [] }).devices.controllers).toEqual([]);
  });
  it('adds nothing without vCPU pins', () => {
    const d = place({ devices: [device('device1', '01')], cells: [{ id: 0, cpus: '0-1' }], pins: [] });
    expect(d.devices.controllers).toEqual([]);
  });
});

describe('PCI NUMA placement (PlacePCIDevicesWithNUMAAlignment)', () => {
  it('gives up, leaving the domain unchanged, when controller indexes reach the expander bus numbers', () => {
    const highest = { type: 'pci', index: 255, model: 'pcie-root-port' };
    const d = place({ devices: [device('device1', '01')], controllers: [highest] });
    expect(d.devices.controllers).toEqual([highest]);
    expect(hostdevOf(d, 'device1').address).toBeUndefined();
  });
  it('refuses, naming the device and both numbers, when placement is strict', () => {
    const e = refusal({
      devices: [device('device1', '01')],
      strict: true,
      controllers: [{ type: 'pci', index: 255, model: 'pcie-root-port' }],
    });
    expect(e.field).toBe('spec.domain.devices.hostDevices[0]');
    expect(e.message).toContain('insufficient bus numbers for NUMA-aligned PCIe topology');
    expect(e.message).toContain('current controller index 256');
    expect(e.message).toContain('last assigned expander bus number 255');
  });
  it('numbers expander buses 255 - controllers so far + 1 (254, then 252)', () => {
    const d = place({ devices: [device('numa0', '01'), device('numa1', '02')] });
    const busNrs = d.devices.controllers.filter((c) => c.model === 'pcie-expander-bus').map((c) => c.target?.busNr);
    expect(busNrs).toEqual([254, 252]);
  });
  it('puts each device in slot 0 of its own root port', () => {
    const d = place({ devices: [device('a', '01'), device('b', '03'), device('c', '02')] });
    const ports = d.devices.controllers.filter((c) => c.model === 'pcie-root-port').map((c) => String(c.index));
    for (const h of d.devices.hostdevs) {
      expect(h.address?.slot).toBe('0x00');
      expect(ports).toContain(h.address?.bus);
    }
    expect(new Set(d.devices.hostdevs.map((h) => h.address?.bus)).size).toBe(3);
  });
  it('keeps an existing guest address and places the other device', () => {
    const d = place({ devices: [device('fixed', '01', { guestPciAddress: '0000:00:07.0' }), device('numa1', '02')] });
    expect(models(d)).toEqual(['pcie-expander-bus', 'pcie-root-port']);
    expect(d.devices.controllers[0]?.target?.node).toBe(1);
    expect(hostdevOf(d, 'fixed').address).toEqual({ ...guestAddress('0x00'), slot: '0x07' });
    expect(hostdevOf(d, 'numa1').address).toEqual(guestAddress('2'));
  });
  it('leaves a device without host NUMA node to libvirt', () => {
    const d = place({ devices: [device('none', '06', { noNode: true })] });
    expect(d.devices.controllers).toEqual([]);
    expect(hostdevOf(d, 'none').address).toBeUndefined();
  });
  it('places only the devices with a host NUMA node', () => {
    const d = place({ devices: [device('none', '06', { noNode: true }), device('numa0', '01')] });
    expect(models(d)).toEqual(['pcie-expander-bus', 'pcie-root-port']);
    expect(d.devices.controllers[0]?.target?.node).toBe(0);
    expect(hostdevOf(d, 'none').address).toBeUndefined();
    expect(hostdevOf(d, 'numa0').address).toEqual(guestAddress('2'));
  });
  it('strict: a device without host NUMA node is refused, naming it', () => {
    const e = refusal({ devices: [device('none', '06', { noNode: true })], strict: true });
    expect(e.field).toBe('spec.domain.devices.hostDevices[0]');
    expect(e.message).toContain('strict PCIe NUMA-aware placement failed');
    expect(e.message).toContain('0000:06:00.0');
  });
  it('strict: a device from a DRA claim is named by its VMI field too', () => {
    const claimed = device('claimed', '06', { noNode: true, alias: 'dra-hostdevice-claimed' });
    const e = refusal({ devices: [device('numa0', '01'), claimed], strict: true });
    expect(e.field).toBe('spec.domain.devices.hostDevices[1]');
  });
  it('strict: a device with a guest PCI address is refused', () => {
    const e = refusal({ devices: [device('fixed', '01', { guestPciAddress: '0000:00:07.0' })], strict: true });
    expect(e.message).toContain('already has a guest PCI address');
  });
  it('strict: a host node no guest cell maps to is refused', () => {
    const e = refusal({ devices: [device('numa1', '02')], pins: [{ vcpu: 0, cpuset: '0' }], strict: true });
    expect(e.message).toContain('cannot be mapped to a guest NUMA cell');
  });
  it('prefers the <numatune> memnodes over vCPU pins', () => {
    const d = place({ devices: [device('numa0', '01')], memnodes: [{ cellid: 1, nodeset: '0' }] });
    expect(d.devices.controllers[0]?.target?.node).toBe(1);
    expect(hostdevOf(d, 'numa0').address).toEqual(guestAddress('2'));
  });
  it('falls back to vCPU pins when a host node is bound to two guest cells', () => {
    const memnodes = [
      { cellid: 0, nodeset: '0' },
      { cellid: 1, nodeset: '0' },
    ];
    const d = place({ devices: [device('numa0', '01')], memnodes });
    expect(d.devices.controllers[0]?.target?.node).toBe(0);
  });
  it('strict: a host node bound to two guest cells is refused', () => {
    const memnodes = [
      { cellid: 0, nodeset: '0' },
      { cellid: 1, nodeset: '0' },
    ];
    const e = refusal({ devices: [device('numa0', '01')], memnodes, strict: true });
    expect(e.message).toContain('mapped to multiple guest NUMA cells');
  });
  it('orders cells and devices by number and address, whatever the device order', () => {
    const d = place({ devices: [device('d4', '04'), device('d3', '03'), device('d2', '02'), device('d1', '01')] });
    expect(
      d.devices.controllers.map((c) => [c.model, c.index, c.address?.bus, c.target?.node, c.target?.busNr]),
    ).toEqual([
      ['pcie-expander-bus', 1, undefined, 0, 253],
      ['pcie-root-port', 2, '1', undefined, undefined],
      ['pcie-root-port', 3, '1', undefined, undefined],
      ['pcie-expander-bus', 4, undefined, 1, 250],
      ['pcie-root-port', 5, '4', undefined, undefined],
      ['pcie-root-port', 6, '4', undefined, undefined],
    ]);
    expect(hostdevOf(d, 'd1').address?.bus).toBe('2');
    expect(hostdevOf(d, 'd3').address?.bus).toBe('3');
    expect(hostdevOf(d, 'd2').address?.bus).toBe('5');
    expect(hostdevOf(d, 'd4').address?.bus).toBe('6');
  });
  it('does nothing with the gate off, on s390x, or without dedicated CPUs', () => {
    expect(place({ devices: [device('a', '01')], gate: false }).devices.controllers).toEqual([]);
    expect(place({ devices: [device('a', '01')], arch: 's390x' }).devices.controllers).toEqual([]);
    const v = vmi({ devices: { hostDevices: [{ name: 'a', deviceName: 'x/y' }] } });
    const ctx = resolveContext(
      ConverterContext.fromPartial({ genericHostDevices: [device('a', '01')], pciNumaAwareTopologyEnabled: true }),
      v,
    );
    const domain = emptyDomain();
    hostDevices.configure(v, domain, ctx);
    pciNumaPlacement.configure(v, domain, ctx);
    expect(domain.devices.controllers).toEqual([]);
  });
});

describe('parseCpuList', () => {
  it('reads lists and ranges and refuses anything else', () => {
    expect(parseCpuList('0-2,5')).toEqual([0, 1, 2, 5]);
    expect(parseCpuList('3')).toEqual([3]);
    expect(parseCpuList('2-1')).toBeUndefined();
    expect(parseCpuList('^1')).toBeUndefined();
  });
});

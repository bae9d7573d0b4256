// PCI NUMA-aware placement (KubeVirt's PCINUMAAwareTopology feature gate): each PCI host device of a VMI
// with dedicated CPUs sits behind a pcie-root-port of its own on a pcie-expander-bus whose <node> is the guest
// NUMA cell its host NUMA node maps to (pci-numa-cells.ts), so the guest sees the device's locality.
// KubeVirt runs this after the CPU pinning and the guest NUMA cells, before its domain manager's hot-plug
// ports. Without guest NUMA passthrough a device that cannot be placed keeps libvirt's placement, and any
// failure leaves the domain unchanged; with passthrough (strict) the conversion is refused instead.
import type { Controller, Domain, HostDevice, PciAddress } from '../domain/types.js';
import { ConversionError, quote } from '../errors.js';
import type { HostDevice as WireHostDevice } from '../gen/virtlauncher/converter/v1/converter.js';
import type { VirtualMachineInstance } from '../vmi/types.js';
import type { Configurator } from './configurator.js';
import { guestCellsOf, type CellWarning } from './pci-numa-cells.js';

/** Expander bus numbers count down from here, leaving the low numbers to the other controllers. */
const MAX_BUS_NR = 255;

/** A PCI host device of the domain and where it came from. */
interface Candidate {
  hostdev: HostDevice;
  /** Host address as KubeVirt spells it for lookups: 0000:81:01.0 (lower case). */
  address: string;
  hostNode: number | undefined;
  /** The VMI entry that asked for it (spec.domain.devices.gpus[0]), else the context entry. */
  field: string;
}

interface Failure {
  field: string;
  value: unknown;
  reason: string;
}

/** A refusal of strict placement, or the reason non-strict placement is given up. */
class PlacementFailed extends Error {
  constructor(readonly failure: Failure) {
    super(failure.reason);
  }
}

function addressKey(a: PciAddress): string {
  const hex = (s: string) => s.replace(/^0x/i, '').toLowerCase();
  return `${hex(a.domain)}:${hex(a.bus)}:${hex(a.slot)}.${hex(a.function)}`;
}

/** The VMI field of a device by its alias (`gpu-<name>`, `hostdevice-<name>`, `sriov-<name>`, DRA's `dra-…`). */
function vmiField(vmi: VirtualMachineInstance, alias: string): string | undefined {
  const devices = vmi.spec.domain.devices;
  const lists = [
    ['gpu-', 'gpus', devices.gpus],
    ['hostdevice-', 'hostDevices', devices.hostDevices],
    ['dra-gpu-', 'gpus', devices.gpus],
    ['dra-hostdevice-', 'hostDevices', devices.hostDevices],
    ['sriov-', 'interfaces', devices.interfaces],
  ] as const;
  for (const [prefix, name, list] of lists) {
    if (!alias.startsWith(prefix)) continue;
    const index = (list ?? []).findIndex((d) => d.name === alias.slice(prefix.length));
    if (index >= 0) return `spec.domain.devices.${name}[${index}]`;
  }
  return undefined;
}

/** The wire device and its context path, by the alias the host-devices step gave its domain device. */
function wireByAlias(raw: {
  genericHostDevices: WireHostDevice[];
  gpuHostDevices: WireHostDevice[];
  sriovDevices: WireHostDevice[];
}): Map<string, { device: WireHostDevice; field: string }> {
  const byAlias = new Map<string, { device: WireHostDevice; field: string }>();
  const lists = [
    ['context.genericHostDevices', raw.genericHostDevices],
    ['context.gpuHostDevices', raw.gpuHostDevices],
    ['context.sriovDevices', raw.sriovDevices],
  ] as const;
  for (const [field, list] of lists) {
    list.forEach((device, i) => byAlias.set(`ua-${device.alias}`, { device, field: `${field}[${i}]` }));
  }
  return byAlias;
}

/** PCI host devices without a guest address; the others are reported as warnings. */
function candidates(vmi: VirtualMachineInstance, domain: Domain, wire: ReturnType<typeof wireByAlias>) {
  const list: Candidate[] = [];
  const warnings: Failure[] = [];
  for (const hostdev of domain.devices.hostdevs) {
    if (hostdev.type !== 'pci') continue;
    const alias = hostdev.alias?.name ?? '';
    const origin = wire.get(alias);
    const field = vmiField(vmi, alias.replace(/^ua-/, '')) ?? origin?.field ?? 'spec.domain.devices';
    const source = hostdev.source.address;
    if (!source || !('slot' in source)) {
      warnings.push({ field, value: alias, reason: 'PCI host device has no source address' });
      continue;
    }
    const address = addressKey(source);
    if (hostdev.address) {
      warnings.push({ field, value: address, reason: `device ${address} already has a guest PCI address` });
      continue;
    }
    list.push({ hostdev, address, hostNode: origin?.device.numaNode, field });
  }
  return { list: list.sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0)), warnings };
}

/** Highest controller index of the domain (KubeVirt's getCurrentControllerIndex); new controllers follow it. */
export function currentControllerIndex(domain: Domain): number {
  return Math.max(0, ...domain.devices.controllers.map((c) => c.index));
}

/** Expander buses (by guest cell, ascending), their root ports and the devices' new guest addresses. */
function buildTopology(
  domain: Domain,
  groups: Map<number, Candidate[]>,
): {
  controllers: Controller[];
  addresses: Map<HostDevice, PciAddress>;
} {
  let index = currentControllerIndex(domain);
  let created = 0;
  let lastBusNr = MAX_BUS_NR;
  const controllers: Controller[] = [];
  const addresses = new Map<HostDevice, PciAddress>();
  const pci = (bus: string, slot: number): PciAddress => ({
    type: 'pci',
    domain: '0x0000',
    bus,
    slot: `0x${slot.toString(16).padStart(2, '0')}`,
    function: '0x0',
  });
  for (const cell of [...groups.keys()].sort((a, b) => a - b)) {
    const expander: Controller = { type: 'pci', index: ++index, model: 'pcie-expander-bus', target: { node: cell } };
    created++;
    const ports: Controller[] = [];
    for (const device of groups.get(cell)!) {
      if (index >= lastBusNr - 1) {
        throw new PlacementFailed({
          field: device.field,
          value: device.address,
          reason: `insufficient bus numbers for NUMA-aligned PCIe topology: current controller index ${index}, last assigned expander bus number ${lastBusNr}`,
        });
      }
      const port: Controller = {
        type: 'pci',
        index: ++index,
        model: 'pcie-root-port',
        address: pci(String(expander.index), ports.length),
      };
      created++;
      ports.push(port);
      addresses.set(device.hostdev, pci(String(port.index), 0));
    }
    // The expander's bus numbers leave room below for all its children, counting down from 255.
    lastBusNr = MAX_BUS_NR - created + 1;
    expander.target = { busNr: lastBusNr, node: cell };
    controllers.push(expander, ...ports);
  }
  return { controllers, addresses };
}

function warningFailure(w: CellWarning, byAddress: Map<string, Candidate>, vmiFieldPath: string): Failure {
  const device = w.address === undefined ? undefined : byAddress.get(w.address);
  return device
    ? { field: device.field, value: device.address, reason: `device ${device.address}: ${w.reason}` }
    : { field: vmiFieldPath, value: undefined, reason: w.reason };
}

const STRICT_FIELD = 'spec.domain.cpu.numa.guestMappingPassthrough';

function place(
  vmi: VirtualMachineInstance,
  domain: Domain,
  strict: boolean,
  raw: Parameters<typeof wireByAlias>[0] & {
    hostNumaNodes: Parameters<typeof guestCellsOf>[2];
  },
): void {
  const { list, warnings } = candidates(vmi, domain, wireByAlias(raw));
  const byAddress = new Map(list.map((c) => [c.address, c]));
  const lookup = guestCellsOf(list, domain, raw.hostNumaNodes);
  const failures: Failure[] = [...warnings, ...lookup.warnings.map((w) => warningFailure(w, byAddress, STRICT_FIELD))];
  const groups = new Map<number, Candidate[]>();
  for (const device of list) {
    const cell = lookup.cells.get(device.address);
    if (cell === undefined) {
      if (!failures.some((f) => f.value === device.address)) {
        failures.push({
          field: device.field,
          value: device.address,
          reason: `device ${device.address} cannot be placed on a NUMA-aware PCIe topology: no guest NUMA node mapping is available`,
        });
      }
      continue;
    }
    groups.set(cell, [...(groups.get(cell) ?? []), device]);
  }
  if (strict && failures.length > 0) throw new PlacementFailed(failures[0]!);
  const { controllers, addresses } = buildTopology(domain, groups);
  domain.devices.controllers.push(...controllers);
  for (const [hostdev, address] of addresses) hostdev.address = address;
}

export const pciNumaPlacement: Configurator = {
  name: 'pci-numa-placement',
  configure(vmi, domain, ctx) {
    const cpu = vmi.spec.domain.cpu;
    if (!ctx.raw.pciNumaAwareTopologyEnabled || !cpu?.dedicatedCpuPlacement) return;
    // s390x has no PCIe root ports or expander buses.
    if (ctx.arch.arch === 's390x') return;
    const strict = cpu.numa?.guestMappingPassthrough !== undefined;
    try {
      place(vmi, domain, strict, ctx.raw);
    } catch (error) {
      if (!(error instanceof PlacementFailed)) throw error;
      // Without guest NUMA passthrough KubeVirt logs the failure and keeps libvirt's placement.
      if (!strict) return;
      const { field, value, reason } = error.failure;
      const shown = value === undefined ? '' : `${quote(value)}: `;
      throw new ConversionError(field, value, `${shown}strict PCIe NUMA-aware placement failed: ${reason}`);
    }
  },
};

// <devices> children, in the order KubeVirt's schema.go writes them.
import type {
  Alias,
  Controller,
  Devices,
  DomainDisk,
  DomainInterface,
  DriveAddress,
  HostDevice,
  PciAddress,
} from '../domain/types.js';
import { el, type XmlNode } from './node.js';

function alias(a: Alias | undefined): XmlNode | undefined {
  return a && el('alias', { name: a.name });
}

function address(a: PciAddress | DriveAddress | undefined): XmlNode | undefined {
  if (!a) return undefined;
  return a.type === 'pci'
    ? el('address', { type: 'pci', domain: a.domain, bus: a.bus, slot: a.slot, function: a.function })
    : el('address', { type: 'drive', controller: a.controller, bus: a.bus, unit: a.unit });
}

function boot(order: number | undefined): XmlNode | undefined {
  return order === undefined ? undefined : el('boot', { order });
}

function iface(i: DomainInterface): XmlNode {
  return el('interface', { type: i.type }, [
    i.source && el('source', { dev: i.source.dev }),
    i.target && el('target', { dev: i.target.dev, managed: i.target.managed }),
    el('model', { type: i.model.type }),
    i.mac !== undefined && el('mac', { address: i.mac }),
    i.mtu !== undefined && el('mtu', { size: i.mtu }),
    i.driver && el('driver', { name: i.driver.name, queues: i.driver.queues, iommu: i.driver.iommu }),
    alias(i.alias),
    boot(i.bootOrder),
    i.rom && el('rom', { enabled: i.rom.enabled }),
    i.link && el('link', { state: i.link.state }),
    address(i.address),
    i.acpiIndex !== undefined && el('acpi', { index: i.acpiIndex }),
    i.backend && el('backend', { type: i.backend.type, logFile: i.backend.logFile }),
    ...(i.portForwards ?? []).map((pf) =>
      el(
        'portForward',
        { proto: pf.proto },
        pf.ranges.map((r) => el('range', { start: r.start, end: r.end, exclude: r.exclude ? 'yes' : undefined })),
      ),
    ),
  ]);
}

function hostdev(h: HostDevice): XmlNode {
  const src = h.source;
  const srcAddress =
    src.address && 'slot' in src.address
      ? address(src.address)
      : src.address && el('address', { bus: src.address.bus, device: src.address.device });
  return el(
    'hostdev',
    {
      mode: h.mode ?? 'subsystem',
      type: h.type,
      managed: h.managed,
      model: h.model,
      display: h.display,
      ramfb: h.ramfb,
    },
    [
      el('source', {}, [
        srcAddress,
        src.uuid !== undefined && el('address', { uuid: src.uuid }),
        src.vendor !== undefined && el('vendor', { id: src.vendor }),
        src.product !== undefined && el('product', { id: src.product }),
      ]),
      alias(h.alias),
      boot(h.bootOrder),
      address(h.address),
    ],
  );
}

function controller(c: Controller): XmlNode {
  const driver =
    c.driver && el('driver', { iommu: c.driver.iommu, iothread: c.driver.iothread, queues: c.driver.queues });
  return el('controller', { type: c.type, index: c.index, model: c.model }, [
    driver,
    c.pcihole64 !== undefined && el('pcihole64', { unit: 'KiB' }, [], String(c.pcihole64)),
    c.target && el('target', { hotplug: c.target.hotplug }),
  ]);
}

function disk(d: DomainDisk): XmlNode {
  const s = d.source;
  const source = el('source', { file: s.file, dev: s.dev, name: s.name }, [
    s.reservations &&
      el('reservations', { managed: s.reservations.managed, migration: s.reservations.migration }, [
        el('source', {
          type: s.reservations.source.type,
          path: s.reservations.source.path,
          mode: s.reservations.source.mode,
        }),
      ]),
  ]);
  const dr = d.driver;
  return el('disk', { device: d.device, type: d.type, model: d.model }, [
    source,
    el('target', { bus: d.target.bus, dev: d.target.dev, tray: d.target.tray }),
    d.serial !== undefined && el('serial', {}, [], d.serial),
    el('driver', {
      cache: dr.cache,
      error_policy: dr.errorPolicy,
      io: dr.io,
      name: dr.name,
      type: dr.type,
      iothread: dr.iothread,
      queues: dr.queues,
      discard: dr.discard,
      iommu: dr.iommu,
    }),
    d.readonly && el('readonly'),
    alias(d.alias),
    d.backingStore &&
      el('backingStore', { type: d.backingStore.type }, [
        el('format', { type: d.backingStore.format }),
        el('source', {
          file: d.backingStore.source.file,
          dev: d.backingStore.source.dev,
          name: d.backingStore.source.name,
        }),
      ]),
    boot(d.bootOrder),
    address(d.address),
    d.blockio &&
      el('blockio', {
        logical_block_size: d.blockio.logical,
        physical_block_size: d.blockio.physical,
        discard_granularity: d.blockio.discardGranularity,
      }),
    d.shareable && el('shareable'),
  ]);
}

export function devicesXml(d: Devices): XmlNode {
  return el('devices', {}, [
    d.emulator !== undefined && el('emulator', {}, [], d.emulator),
    ...d.interfaces.map(iface),
    ...d.channels.map((c) =>
      el('channel', { type: c.type }, [
        c.source && el('source', { mode: c.source.mode, path: c.source.path }),
        el('target', { name: c.target.name, type: c.target.type }),
      ]),
    ),
    ...d.hostdevs.map(hostdev),
    ...d.panics.map((p) => el('panic', { model: p.model })),
    ...d.controllers.map(controller),
    ...d.videos.map((v) => el('video', {}, [el('model', { type: v.type, heads: v.heads, vram: v.vram })])),
    ...d.graphics.map((g) =>
      el('graphics', { type: g.type }, [el('listen', { type: g.listen.type, socket: g.listen.socket })]),
    ),
    d.memballoon &&
      el('memballoon', { model: d.memballoon.model, freePageReporting: d.memballoon.freePageReporting }, [
        d.memballoon.statsPeriod !== undefined && el('stats', { period: d.memballoon.statsPeriod }),
        d.memballoon.iommu !== undefined && el('driver', { iommu: d.memballoon.iommu }),
      ]),
    ...d.disks.map(disk),
    ...d.inputs.map((i) => el('input', { type: i.type, bus: i.bus, model: i.model }, [alias(i.alias)])),
    ...d.serials.map((s) =>
      el('serial', { type: s.type }, [
        el('target', { port: s.port }),
        el('source', { mode: 'bind', path: s.path }),
        s.log && el('log', { file: s.log.file, append: s.log.append }),
      ]),
    ),
    ...d.consoles.map((c) => el('console', { type: c.type }, [el('target', { type: c.targetType, port: c.port })])),
    ...d.watchdogs.map((w) => el('watchdog', { model: w.model, action: w.action }, [alias(w.alias)])),
    d.rng &&
      el('rng', { model: d.rng.model }, [
        el('backend', { model: 'random' }, [], d.rng.backend),
        d.rng.iommu !== undefined && el('driver', { iommu: d.rng.iommu }),
      ]),
    ...d.filesystems.map((f) =>
      el('filesystem', { type: 'mount', accessmode: 'passthrough' }, [
        el('driver', { type: 'virtiofs', queue: 1024 }),
        el('source', { socket: f.socket }),
        el('target', { dir: f.target }),
      ]),
    ),
    ...d.redirdevs.map((r) =>
      el('redirdev', { type: 'unix', bus: 'usb' }, [el('source', { mode: 'bind', path: r.path })]),
    ),
    ...d.sounds.map((s) => el('sound', { model: s.model }, [alias(s.alias)])),
    ...d.tpms.map((t) =>
      el('tpm', { model: t.model }, [
        el('backend', { type: 'emulator', version: '2.0', persistent_state: t.persistentState ? 'yes' : undefined }),
      ]),
    ),
    d.vsock && el('vsock', { model: d.vsock.model }, [el('cid', { auto: 'no', address: d.vsock.cid })]),
  ]);
}

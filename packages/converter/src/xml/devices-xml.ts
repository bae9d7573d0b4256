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
import type { XmlWriter } from './writer.js';

function alias(w: XmlWriter, a: Alias | undefined): void {
  if (a) w.leaf('alias', { name: a.name });
}

function address(w: XmlWriter, a: PciAddress | DriveAddress | undefined): void {
  if (!a) return;
  if (a.type === 'pci') {
    w.leaf('address', { type: 'pci', domain: a.domain, bus: a.bus, slot: a.slot, function: a.function });
  } else {
    w.leaf('address', { type: 'drive', controller: a.controller, bus: a.bus, unit: a.unit });
  }
}

function boot(w: XmlWriter, order: number | undefined): void {
  if (order !== undefined) w.leaf('boot', { order });
}

function iface(w: XmlWriter, i: DomainInterface): void {
  // KubeVirt's element order (libvirt's schema takes any order): address first, alias before driver.
  w.open('interface', { type: i.type });
  address(w, i.address);
  if (i.source) w.leaf('source', { dev: i.source.dev });
  if (i.target) w.leaf('target', { dev: i.target.dev, managed: i.target.managed });
  w.leaf('model', { type: i.model.type });
  if (i.mac !== undefined) w.leaf('mac', { address: i.mac });
  if (i.mtu !== undefined) w.leaf('mtu', { size: i.mtu });
  boot(w, i.bootOrder);
  if (i.link) w.leaf('link', { state: i.link.state });
  alias(w, i.alias);
  if (i.driver) w.leaf('driver', { name: i.driver.name, queues: i.driver.queues, iommu: i.driver.iommu });
  if (i.rom) w.leaf('rom', { enabled: i.rom.enabled });
  if (i.acpiIndex !== undefined) w.leaf('acpi', { index: i.acpiIndex });
  if (i.backend) w.leaf('backend', { type: i.backend.type, logFile: i.backend.logFile });
  for (const pf of i.portForwards ?? []) {
    w.open('portForward', { proto: pf.proto });
    for (const r of pf.ranges) w.leaf('range', { start: r.start, end: r.end, exclude: r.exclude ? 'yes' : undefined });
    w.close();
  }
  w.close();
}

function hostdev(w: XmlWriter, h: HostDevice): void {
  const src = h.source;
  w.open('hostdev', {
    mode: h.mode ?? 'subsystem',
    type: h.type,
    managed: h.managed,
    model: h.model,
    display: h.display,
    ramfb: h.ramfb,
  });
  w.open('source');
  // A host address carries no type: libvirt's schema refuses one here (and libvirtd drops it).
  if (src.address && 'slot' in src.address) {
    const a = src.address;
    w.leaf('address', { domain: a.domain, bus: a.bus, slot: a.slot, function: a.function });
  } else if (src.address) w.leaf('address', { bus: src.address.bus, device: src.address.device });
  if (src.uuid !== undefined) w.leaf('address', { uuid: src.uuid });
  if (src.vendor !== undefined) w.leaf('vendor', { id: src.vendor });
  if (src.product !== undefined) w.leaf('product', { id: src.product });
  w.close();
  alias(w, h.alias);
  boot(w, h.bootOrder);
  address(w, h.address);
  w.close();
}

function controller(w: XmlWriter, c: Controller): void {
  w.open('controller', { type: c.type, index: c.index, model: c.model });
  if (c.driver) w.leaf('driver', { iommu: c.driver.iommu, iothread: c.driver.iothread, queues: c.driver.queues });
  address(w, c.address);
  if (c.pcihole64 !== undefined) w.leaf('pcihole64', { unit: 'KiB' }, String(c.pcihole64));
  const t = c.target;
  if (t?.node !== undefined)
    w.open('target', { hotplug: t.hotplug, busNr: t.busNr }).leaf('node', undefined, String(t.node)).close();
  else if (t) w.leaf('target', { hotplug: t.hotplug, busNr: t.busNr });
  w.close();
}

function disk(w: XmlWriter, d: DomainDisk): void {
  const s = d.source;
  const dr = d.driver;
  w.open('disk', { device: d.device, type: d.type, model: d.model });
  w.open('source', { file: s.file, dev: s.dev, name: s.name });
  if (s.reservations) {
    const r = s.reservations;
    w.open('reservations', { managed: r.managed, migration: r.migration });
    w.leaf('source', { type: r.source.type, path: r.source.path, mode: r.source.mode });
    w.close();
  }
  if (s.dataStore) {
    const ds = s.dataStore;
    w.open('dataStore', { type: ds.type });
    w.leaf('format', { type: ds.format });
    w.leaf('source', { file: ds.source.file, dev: ds.source.dev });
    w.close();
  }
  w.close();
  w.leaf('target', { bus: d.target.bus, dev: d.target.dev, tray: d.target.tray });
  if (d.serial !== undefined) w.leaf('serial', undefined, d.serial);
  const driverAttrs = {
    cache: dr.cache,
    error_policy: dr.errorPolicy,
    io: dr.io,
    name: dr.name,
    type: dr.type,
    iothread: dr.iothread,
    queues: dr.queues,
    discard: dr.discard,
    iommu: dr.iommu,
  };
  if (dr.iothreads?.length) {
    w.open('driver', driverAttrs);
    w.open('iothreads');
    for (const id of dr.iothreads) w.leaf('iothread', { id });
    w.close();
    w.close();
  } else {
    w.leaf('driver', driverAttrs);
  }
  if (d.readonly) w.leaf('readonly');
  alias(w, d.alias);
  if (d.backingStore) {
    const b = d.backingStore;
    w.open('backingStore', { type: b.type });
    w.leaf('format', { type: b.format });
    w.leaf('source', { file: b.source.file, dev: b.source.dev, name: b.source.name });
    w.close();
  }
  boot(w, d.bootOrder);
  address(w, d.address);
  if (d.blockio) {
    w.leaf('blockio', {
      logical_block_size: d.blockio.logical,
      physical_block_size: d.blockio.physical,
      discard_granularity: d.blockio.discardGranularity,
    });
  }
  if (d.shareable) w.leaf('shareable');
  w.close();
}

function smallDevices(w: XmlWriter, d: Devices): void {
  for (const i of d.inputs) {
    w.open('input', { type: i.type, bus: i.bus, model: i.model });
    alias(w, i.alias);
    w.close();
  }
  for (const s of d.serials) {
    w.open('serial', { type: s.type });
    w.leaf('target', { port: s.port });
    w.leaf('source', { mode: 'bind', path: s.path });
    if (s.log) w.leaf('log', { file: s.log.file, append: s.log.append });
    w.close();
  }
  for (const c of d.consoles) {
    w.open('console', { type: c.type }).leaf('target', { type: c.targetType, port: c.port }).close();
  }
  for (const wd of d.watchdogs) {
    w.open('watchdog', { model: wd.model, action: wd.action });
    alias(w, wd.alias);
    w.close();
  }
  if (d.rng) {
    w.open('rng', { model: d.rng.model });
    w.leaf('backend', { model: 'random' }, d.rng.backend);
    if (d.rng.iommu !== undefined) w.leaf('driver', { iommu: d.rng.iommu });
    w.close();
  }
  for (const f of d.filesystems) {
    // KubeVirt's element order (libvirt's schema takes any); libvirt spells the access mode attribute
    // "accessmode", KubeVirt "accessMode", which libvirt's schema does not know (README).
    w.open('filesystem', { type: 'mount', accessmode: 'passthrough' });
    w.leaf('source', { socket: f.socket });
    w.leaf('target', { dir: f.target });
    w.leaf('driver', { type: 'virtiofs', queue: 1024 });
    w.close();
  }
  for (const r of d.redirdevs) {
    w.open('redirdev', { type: 'unix', bus: 'usb' }).leaf('source', { mode: 'bind', path: r.path }).close();
  }
  for (const s of d.sounds) {
    w.open('sound', { model: s.model });
    alias(w, s.alias);
    w.close();
  }
  for (const t of d.tpms) {
    w.open('tpm', { model: t.model });
    w.leaf('backend', { type: 'emulator', version: '2.0', persistent_state: t.persistentState ? 'yes' : undefined });
    w.close();
  }
  if (d.vsock) w.open('vsock', { model: d.vsock.model }).leaf('cid', { auto: 'no', address: d.vsock.cid }).close();
}

export function devicesXml(w: XmlWriter, d: Devices): void {
  w.open('devices');
  if (d.emulator !== undefined) w.leaf('emulator', undefined, d.emulator);
  for (const i of d.interfaces) iface(w, i);
  for (const c of d.channels) {
    w.open('channel', { type: c.type });
    if (c.source) w.leaf('source', { mode: c.source.mode, path: c.source.path });
    w.leaf('target', { name: c.target.name, type: c.target.type });
    w.close();
  }
  for (const h of d.hostdevs) hostdev(w, h);
  for (const p of d.panics) w.leaf('panic', { model: p.model });
  for (const c of d.controllers) controller(w, c);
  for (const v of d.videos) w.open('video').leaf('model', { type: v.type, heads: v.heads, vram: v.vram }).close();
  for (const g of d.graphics) {
    w.open('graphics', { type: g.type }).leaf('listen', { type: g.listen.type, socket: g.listen.socket }).close();
  }
  const mb = d.memballoon;
  if (mb) {
    w.open('memballoon', { model: mb.model, freePageReporting: mb.freePageReporting });
    if (mb.statsPeriod !== undefined) w.leaf('stats', { period: mb.statsPeriod });
    if (mb.iommu !== undefined) w.leaf('driver', { iommu: mb.iommu });
    w.close();
  }
  for (const dk of d.disks) disk(w, dk);
  smallDevices(w, d);
  w.close();
}

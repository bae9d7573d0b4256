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
import { tag, type XmlWriter } from './writer.js';

// The start tags written here, each made once (see Tag).
const ALIAS = tag('alias', 'name');
const PCI_ADDRESS = tag('address', 'type', 'domain', 'bus', 'slot', 'function');
const DRIVE_ADDRESS = tag('address', 'type', 'controller', 'bus', 'unit');
const BOOT = tag('boot', 'order');
const INTERFACE = tag('interface', 'type');
const INTERFACE_SOURCE = tag('source', 'dev');
const INTERFACE_TARGET = tag('target', 'dev', 'managed');
const INTERFACE_MODEL = tag('model', 'type');
const MAC = tag('mac', 'address');
const MTU = tag('mtu', 'size');
const LINK = tag('link', 'state');
const INTERFACE_DRIVER = tag('driver', 'name', 'queues', 'iommu');
const ROM = tag('rom', 'enabled');
const ACPI = tag('acpi', 'index');
const INTERFACE_BACKEND = tag('backend', 'type', 'logFile');
const PORT_FORWARD = tag('portForward', 'proto');
const RANGE = tag('range', 'start', 'end', 'exclude');
const HOSTDEV = tag('hostdev', 'mode', 'type', 'managed', 'model', 'display', 'ramfb');
const HOST_PCI_ADDRESS = tag('address', 'domain', 'bus', 'slot', 'function');
const HOST_USB_ADDRESS = tag('address', 'bus', 'device');
const MDEV_ADDRESS = tag('address', 'uuid');
const VENDOR = tag('vendor', 'id');
const PRODUCT = tag('product', 'id');
const CONTROLLER = tag('controller', 'type', 'index', 'model');
const CONTROLLER_DRIVER = tag('driver', 'iommu', 'iothread', 'queues');
const CONTROLLER_TARGET = tag('target', 'hotplug', 'busNr');
const DISK = tag('disk', 'device', 'type', 'model');
const DISK_SOURCE = tag('source', 'file', 'dev', 'name');
const RESERVATIONS = tag('reservations', 'managed', 'migration');
const RESERVATIONS_SOURCE = tag('source', 'type', 'path', 'mode');
const DATA_STORE = tag('dataStore', 'type');
const FORMAT = tag('format', 'type');
const DATA_STORE_SOURCE = tag('source', 'file', 'dev');
const DISK_TARGET = tag('target', 'bus', 'dev', 'tray');
const IOTHREAD = tag('iothread', 'id');
const BACKING_STORE = tag('backingStore', 'type');
const BLOCKIO = tag('blockio', 'logical_block_size', 'physical_block_size', 'discard_granularity');
const INPUT = tag('input', 'type', 'bus', 'model');
const SERIAL = tag('serial', 'type');
const SERIAL_TARGET = tag('target', 'port');
const SOCKET_SOURCE = tag('source', 'mode', 'path');
const LOG = tag('log', 'file', 'append');
const CONSOLE = tag('console', 'type');
const CONSOLE_TARGET = tag('target', 'type', 'port');
const WATCHDOG = tag('watchdog', 'model', 'action');
const RNG = tag('rng', 'model');
const RNG_BACKEND = tag('backend', 'model');
const IOMMU_DRIVER = tag('driver', 'iommu');
const FILESYSTEM = tag('filesystem', 'type', 'accessmode');
const FILESYSTEM_SOURCE = tag('source', 'socket');
const FILESYSTEM_TARGET = tag('target', 'dir');
const FILESYSTEM_DRIVER = tag('driver', 'type', 'queue');
const REDIRDEV = tag('redirdev', 'type', 'bus');
const SOUND = tag('sound', 'model');
const TPM = tag('tpm', 'model');
const TPM_BACKEND = tag('backend', 'type', 'version', 'persistent_state');
const VSOCK = tag('vsock', 'model');
const CID = tag('cid', 'auto', 'address');
const CHANNEL = tag('channel', 'type');
const CHANNEL_TARGET = tag('target', 'name', 'type');
const PANIC = tag('panic', 'model');
const VIDEO_MODEL = tag('model', 'type', 'heads', 'vram');
const GRAPHICS = tag('graphics', 'type');
const LISTEN = tag('listen', 'type', 'socket');
const MEMBALLOON = tag('memballoon', 'model', 'freePageReporting');
const STATS = tag('stats', 'period');
const DISK_DRIVER = tag(
  'driver',
  'cache',
  'error_policy',
  'io',
  'name',
  'type',
  'iothread',
  'queues',
  'discard',
  'iommu',
);

function alias(w: XmlWriter, a: Alias | undefined): void {
  if (a) w.leafTag(ALIAS, a.name);
}

function address(w: XmlWriter, a: PciAddress | DriveAddress | undefined): void {
  if (!a) return;
  if (a.type === 'pci') {
    w.leafTag(PCI_ADDRESS, 'pci', a.domain, a.bus, a.slot, a.function);
  } else {
    w.leafTag(DRIVE_ADDRESS, 'drive', a.controller, a.bus, a.unit);
  }
}

function boot(w: XmlWriter, order: number | undefined): void {
  if (order !== undefined) w.leafTag(BOOT, order);
}

function iface(w: XmlWriter, i: DomainInterface): void {
  // KubeVirt's element order (libvirt's schema takes any order): address first, alias before driver.
  w.openTag(INTERFACE, i.type);
  address(w, i.address);
  if (i.source) w.leafTag(INTERFACE_SOURCE, i.source.dev);
  if (i.target) w.leafTag(INTERFACE_TARGET, i.target.dev, i.target.managed);
  w.leafTag(INTERFACE_MODEL, i.model.type);
  if (i.mac !== undefined) w.leafTag(MAC, i.mac);
  if (i.mtu !== undefined) w.leafTag(MTU, i.mtu);
  boot(w, i.bootOrder);
  if (i.link) w.leafTag(LINK, i.link.state);
  alias(w, i.alias);
  if (i.driver) w.leafTag(INTERFACE_DRIVER, i.driver.name, i.driver.queues, i.driver.iommu);
  if (i.rom) w.leafTag(ROM, i.rom.enabled);
  if (i.acpiIndex !== undefined) w.leafTag(ACPI, i.acpiIndex);
  if (i.backend) w.leafTag(INTERFACE_BACKEND, i.backend.type, i.backend.logFile);
  for (const pf of i.portForwards ?? []) {
    w.openTag(PORT_FORWARD, pf.proto);
    for (const r of pf.ranges) w.leafTag(RANGE, r.start, r.end, r.exclude ? 'yes' : undefined);
    w.close();
  }
  w.close();
}

function hostdev(w: XmlWriter, h: HostDevice): void {
  const src = h.source;
  w.openTag(HOSTDEV, h.mode ?? 'subsystem', h.type, h.managed, h.model, h.display, h.ramfb);
  w.open('source');
  // A host address carries no type: libvirt's schema refuses one here (and libvirtd drops it).
  if (src.address && 'slot' in src.address) {
    const a = src.address;
    w.leafTag(HOST_PCI_ADDRESS, a.domain, a.bus, a.slot, a.function);
  } else if (src.address) w.leafTag(HOST_USB_ADDRESS, src.address.bus, src.address.device);
  if (src.uuid !== undefined) w.leafTag(MDEV_ADDRESS, src.uuid);
  if (src.vendor !== undefined) w.leafTag(VENDOR, src.vendor);
  if (src.product !== undefined) w.leafTag(PRODUCT, src.product);
  w.close();
  alias(w, h.alias);
  boot(w, h.bootOrder);
  address(w, h.address);
  w.close();
}

function controller(w: XmlWriter, c: Controller): void {
  w.openTag(CONTROLLER, c.type, c.index, c.model);
  if (c.driver) w.leafTag(CONTROLLER_DRIVER, c.driver.iommu, c.driver.iothread, c.driver.queues);
  address(w, c.address);
  if (c.pcihole64 !== undefined) w.leaf('pcihole64', { unit: 'KiB' }, String(c.pcihole64));
  const t = c.target;
  if (t?.node !== undefined)
    w.openTag(CONTROLLER_TARGET, t.hotplug, t.busNr).leaf('node', undefined, String(t.node)).close();
  else if (t) w.leafTag(CONTROLLER_TARGET, t.hotplug, t.busNr);
  w.close();
}

function disk(w: XmlWriter, d: DomainDisk): void {
  const s = d.source;
  const dr = d.driver;
  w.openTag(DISK, d.device, d.type, d.model);
  w.openTag(DISK_SOURCE, s.file, s.dev, s.name);
  if (s.reservations) {
    const r = s.reservations;
    w.openTag(RESERVATIONS, r.managed, r.migration);
    w.leafTag(RESERVATIONS_SOURCE, r.source.type, r.source.path, r.source.mode);
    w.close();
  }
  if (s.dataStore) {
    const ds = s.dataStore;
    w.openTag(DATA_STORE, ds.type);
    w.leafTag(FORMAT, ds.format);
    w.leafTag(DATA_STORE_SOURCE, ds.source.file, ds.source.dev);
    w.close();
  }
  w.close();
  w.leafTag(DISK_TARGET, d.target.bus, d.target.dev, d.target.tray);
  if (d.serial !== undefined) w.leaf('serial', undefined, d.serial);
  const driver = [dr.cache, dr.errorPolicy, dr.io, dr.name, dr.type, dr.iothread, dr.queues, dr.discard, dr.iommu];
  if (dr.iothreads?.length) {
    w.openTag(DISK_DRIVER, ...driver);
    w.open('iothreads');
    for (const id of dr.iothreads) w.leafTag(IOTHREAD, id);
    w.close();
    w.close();
  } else {
    w.leafTag(DISK_DRIVER, ...driver);
  }
  if (d.readonly) w.leaf('readonly');
  alias(w, d.alias);
  if (d.backingStore) {
    const b = d.backingStore;
    w.openTag(BACKING_STORE, b.type);
    w.leafTag(FORMAT, b.format);
    w.leafTag(DISK_SOURCE, b.source.file, b.source.dev, b.source.name);
    w.close();
  }
  boot(w, d.bootOrder);
  address(w, d.address);
  if (d.blockio) {
    w.leafTag(BLOCKIO, d.blockio.logical, d.blockio.physical, d.blockio.discardGranularity);
  }
  if (d.shareable) w.leaf('shareable');
  w.close();
}

function smallDevices(w: XmlWriter, d: Devices): void {
  for (const i of d.inputs) {
    w.openTag(INPUT, i.type, i.bus, i.model);
    alias(w, i.alias);
    w.close();
  }
  for (const s of d.serials) {
    w.openTag(SERIAL, s.type);
    w.leafTag(SERIAL_TARGET, s.port);
    w.leafTag(SOCKET_SOURCE, 'bind', s.path);
    if (s.log) w.leafTag(LOG, s.log.file, s.log.append);
    w.close();
  }
  for (const c of d.consoles) {
    w.openTag(CONSOLE, c.type).leafTag(CONSOLE_TARGET, c.targetType, c.port).close();
  }
  for (const wd of d.watchdogs) {
    w.openTag(WATCHDOG, wd.model, wd.action);
    alias(w, wd.alias);
    w.close();
  }
  if (d.rng) {
    w.openTag(RNG, d.rng.model);
    w.textTag(RNG_BACKEND, d.rng.backend, 'random');
    if (d.rng.iommu !== undefined) w.leafTag(IOMMU_DRIVER, d.rng.iommu);
    w.close();
  }
  for (const f of d.filesystems) {
    // KubeVirt's element order (libvirt's schema takes any); libvirt spells the access mode attribute
    // "accessmode", KubeVirt "accessMode", which libvirt's schema does not know (README).
    w.openTag(FILESYSTEM, 'mount', 'passthrough');
    w.leafTag(FILESYSTEM_SOURCE, f.socket);
    w.leafTag(FILESYSTEM_TARGET, f.target);
    w.leafTag(FILESYSTEM_DRIVER, 'virtiofs', 1024);
    w.close();
  }
  for (const r of d.redirdevs) {
    w.openTag(REDIRDEV, 'unix', 'usb').leafTag(SOCKET_SOURCE, 'bind', r.path).close();
  }
  for (const s of d.sounds) {
    w.openTag(SOUND, s.model);
    alias(w, s.alias);
    w.close();
  }
  for (const t of d.tpms) {
    w.openTag(TPM, t.model);
    w.leafTag(TPM_BACKEND, 'emulator', '2.0', t.persistentState ? 'yes' : undefined);
    w.close();
  }
  if (d.vsock) w.openTag(VSOCK, d.vsock.model).leafTag(CID, 'no', d.vsock.cid).close();
}

export function devicesXml(w: XmlWriter, d: Devices): void {
  w.open('devices');
  if (d.emulator !== undefined) w.leaf('emulator', undefined, d.emulator);
  for (const i of d.interfaces) iface(w, i);
  for (const c of d.channels) {
    w.openTag(CHANNEL, c.type);
    if (c.source) w.leafTag(SOCKET_SOURCE, c.source.mode, c.source.path);
    w.leafTag(CHANNEL_TARGET, c.target.name, c.target.type);
    w.close();
  }
  for (const h of d.hostdevs) hostdev(w, h);
  for (const p of d.panics) w.leafTag(PANIC, p.model);
  for (const c of d.controllers) controller(w, c);
  for (const v of d.videos) w.open('video').leafTag(VIDEO_MODEL, v.type, v.heads, v.vram).close();
  for (const g of d.graphics) {
    w.openTag(GRAPHICS, g.type).leafTag(LISTEN, g.listen.type, g.listen.socket).close();
  }
  const mb = d.memballoon;
  if (mb) {
    w.openTag(MEMBALLOON, mb.model, mb.freePageReporting);
    if (mb.statsPeriod !== undefined) w.leafTag(STATS, mb.statsPeriod);
    if (mb.iommu !== undefined) w.leafTag(IOMMU_DRIVER, mb.iommu);
    w.close();
  }
  for (const dk of d.disks) disk(w, dk);
  smallDevices(w, d);
  w.close();
}

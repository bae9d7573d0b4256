// toDomainXml(domain): the libvirt domain document. Top-level order follows KubeVirt's schema.go;
// libvirt's schema interleaves these elements, so the order is for readers and golden diffs only.
// Empty elements KubeVirt writes by habit (<bios/>, empty sections inside <sysinfo>, <uid/>) are omitted:
// libvirt's schema rejects some of them.
import type { Domain, HypervFeatureState, SysinfoEntry } from '../domain/types.js';
import { devicesXml } from './devices-xml.js';
import { tag, XmlWriter, type Attrs } from './writer.js';

// The start tags written here, each made once (see Tag).
const OS = tag('os', 'firmware');
const FIRMWARE_FEATURE = tag('feature', 'enabled', 'name');
const OS_TYPE = tag('type', 'arch', 'machine');
const TABLE = tag('table', 'type');
const SMBIOS = tag('smbios', 'mode');
const BOOTMENU = tag('bootmenu', 'enable', 'timeout');
const BIOS = tag('bios', 'useserial');
const LOADER = tag('loader', 'readonly', 'secure', 'type');
const NVRAM = tag('nvram', 'template', 'format');
const ENTRY = tag('entry', 'name');
const SYSINFO = tag('sysinfo', 'type');
const HYPERV = tag('hyperv', 'mode');
const HIDDEN = tag('hidden', 'state');
const HINT_DEDICATED = tag('hint-dedicated', 'state');
const PVSPINLOCK = tag('pvspinlock', 'state');
const PMU = tag('pmu', 'state');
const VMPORT = tag('vmport', 'state');
const CPU = tag('cpu', 'mode');
const TOPOLOGY = tag('topology', 'sockets', 'cores', 'threads');
const CPU_FEATURE = tag('feature', 'name', 'policy');
const SIBLING = tag('sibling', 'id', 'value');
const MEMORY = tag('memory', 'unit');
const MAX_MEMORY = tag('maxMemory', 'unit', 'slots');
const PAGE = tag('page', 'size', 'unit', 'nodeset');
const MEMORY_SOURCE = tag('source', 'type');
const ACCESS = tag('access', 'mode');
const ALLOCATION = tag('allocation', 'mode');
const CLOCK = tag('clock', 'offset', 'adjustment', 'timezone');
const TIMER = tag('timer', 'name', 'tickpolicy', 'present', 'track', 'frequency');
const VCPUPIN = tag('vcpupin', 'vcpu', 'cpuset');
const EMULATORPIN = tag('emulatorpin', 'cpuset');
const IOTHREADPIN = tag('iothreadpin', 'iothread', 'cpuset');
const VCPUSCHED = tag('vcpusched', 'vcpus', 'scheduler', 'priority');
const NUMA_MEMORY = tag('memory', 'mode', 'nodeset');
const MEMNODE = tag('memnode', 'cellid', 'mode', 'nodeset');
const LAUNCH_SECURITY = tag('launchSecurity', 'type');
const DOMAIN = tag('domain', 'type', 'xmlns:qemu');
const QEMU_ARG = tag('qemu:arg', 'value');
const VCPU = tag('vcpu', 'placement');
const VCPU_STATE = tag('vcpu', 'id', 'enabled', 'hotpluggable');
const CELL = tag('cell', 'id', 'cpus', 'memory', 'unit');

export const QEMU_NS = 'http://libvirt.org/schemas/domain/qemu/1.0';

function osXml(w: XmlWriter, domain: Domain): void {
  const os = domain.os;
  w.openTag(OS, os.firmware);
  if (os.firmwareFeatures.length > 0) {
    w.open('firmware');
    for (const f of os.firmwareFeatures) w.leafTag(FIRMWARE_FEATURE, f.enabled, f.name);
    w.close();
  }
  w.textTag(OS_TYPE, os.type.value, os.type.arch, os.type.machine);
  if (os.acpiTables.length > 0) {
    w.open('acpi');
    for (const t of os.acpiTables) w.textTag(TABLE, t.path, t.type);
    w.close();
  }
  if (os.smbiosMode) w.leafTag(SMBIOS, os.smbiosMode);
  if (os.bootmenu) w.leafTag(BOOTMENU, os.bootmenu.enable, os.bootmenu.timeout);
  if (os.biosUseSerial) w.leafTag(BIOS, 'yes');
  if (os.loader) {
    const l = os.loader;
    w.textTag(LOADER, l.path, l.readonly, l.secure, l.type);
  }
  if (os.nvram) w.textTag(NVRAM, os.nvram.path, os.nvram.template, os.nvram.format);
  if (os.kernel !== undefined) w.leaf('kernel', undefined, os.kernel);
  if (os.initrd !== undefined) w.leaf('initrd', undefined, os.initrd);
  if (os.cmdline !== undefined) w.leaf('cmdline', undefined, os.cmdline);
  w.close();
}

function sysinfoXml(w: XmlWriter, domain: Domain): void {
  const s = domain.sysinfo;
  // Written even with no entries, as KubeVirt does: <smbios mode="sysinfo"/> without a <sysinfo> makes
  // QEMU's start fail ("sysinfo are not available"); an empty one is valid.
  if (!s) return;
  const section = (name: string, list: SysinfoEntry[]) => {
    if (list.length === 0) return;
    w.open(name);
    for (const e of list) w.textTag(ENTRY, e.value, e.name);
    w.close();
  };
  w.openTag(SYSINFO, 'smbios');
  section('system', s.system);
  section('chassis', s.chassis);
  w.close();
}

function hypervXml(w: XmlWriter, f: HypervFeatureState): void {
  const attrs: Attrs = { state: f.state };
  for (const [key, value] of f.attrs ?? []) attrs[key] = value;
  w.open(f.name, attrs);
  for (const child of f.children ?? []) hypervXml(w, child);
  w.close();
}

function featuresXml(w: XmlWriter, domain: Domain): void {
  const f = domain.features;
  w.open('features');
  if (f.acpi) w.leaf('acpi');
  if (f.apic) w.leaf('apic');
  if (f.hypervPassthrough) w.leafTag(HYPERV, 'passthrough');
  // An empty <hyperv> (spec.domain.features.hyperv: {}) is kept, as KubeVirt writes it: libvirt reads
  // it as mode custom with no enlightenment.
  if (f.hyperv) {
    w.open('hyperv');
    for (const h of f.hyperv) hypervXml(w, h);
    w.close();
  }
  if (f.smm) w.leaf('smm');
  if (f.kvm) {
    w.open('kvm');
    if (f.kvm.hidden) w.leafTag(HIDDEN, f.kvm.hidden);
    if (f.kvm.hintDedicated) w.leafTag(HINT_DEDICATED, f.kvm.hintDedicated);
    w.close();
  }
  if (f.pvspinlock) w.leafTag(PVSPINLOCK, f.pvspinlock);
  if (f.pmu) w.leafTag(PMU, f.pmu);
  if (f.vmport) w.leafTag(VMPORT, f.vmport);
  w.close();
}

function cpuXml(w: XmlWriter, domain: Domain): void {
  const cpu = domain.cpu;
  if (!cpu) return;
  const t = cpu.topology;
  w.openTag(CPU, cpu.mode);
  if (cpu.model !== undefined) w.leaf('model', undefined, cpu.model);
  w.leafTag(TOPOLOGY, t.sockets, t.cores, t.threads);
  for (const f of cpu.features) w.leafTag(CPU_FEATURE, f.name, f.policy);
  if (cpu.numaCells.length > 0) {
    w.open('numa');
    for (const c of cpu.numaCells) {
      const attrs = [c.id, c.cpus, c.memoryKiB, 'KiB'];
      if (!c.distances?.length) {
        w.leafTag(CELL, ...attrs);
        continue;
      }
      w.openTag(CELL, ...attrs);
      w.open('distances');
      for (const d of c.distances) w.leafTag(SIBLING, d.id, d.value);
      w.close();
      w.close();
    }
    w.close();
  }
  w.close();
}

function memoryXml(w: XmlWriter, domain: Domain): void {
  if (domain.memoryBytes !== undefined) w.textTag(MEMORY, String(domain.memoryBytes), 'b');
  const max = domain.maxMemory;
  if (max) w.textTag(MAX_MEMORY, String(max.bytes), 'b', max.slots);
  const mb = domain.memoryBacking;
  if (mb) {
    w.open('memoryBacking');
    if (mb.hugepagePages?.length) {
      w.open('hugepages');
      for (const p of mb.hugepagePages) w.leafTag(PAGE, p.sizeBytes, 'b', p.nodeset);
      w.close();
    } else if (mb.hugepages) w.leaf('hugepages');
    if (mb.nosharepages) w.leaf('nosharepages');
    if (mb.sourceMemfd) w.leafTag(MEMORY_SOURCE, 'memfd');
    if (mb.accessShared) w.leafTag(ACCESS, 'shared');
    if (mb.allocationImmediate) w.leafTag(ALLOCATION, 'immediate');
    w.close();
  }
}

function clockXml(w: XmlWriter, domain: Domain): void {
  const clock = domain.clock;
  if (!clock) return;
  w.openTag(CLOCK, clock.offset, clock.adjustment, clock.timezone);
  for (const t of clock.timers) {
    w.leafTag(TIMER, t.name, t.tickpolicy, t.present, t.track, t.frequency);
  }
  w.close();
}

function cputuneXml(w: XmlWriter, domain: Domain): void {
  const tune = domain.cputune;
  if (!tune) return;
  w.open('cputune');
  for (const p of tune.vcpupins) w.leafTag(VCPUPIN, p.vcpu, p.cpuset);
  if (tune.emulatorpin !== undefined) w.leafTag(EMULATORPIN, tune.emulatorpin);
  for (const p of tune.iothreadpins) w.leafTag(IOTHREADPIN, p.iothread, p.cpuset);
  const sched = tune.vcpusched;
  if (sched) w.leafTag(VCPUSCHED, sched.vcpus, sched.scheduler, sched.priority);
  w.close();
}

function numatuneXml(w: XmlWriter, domain: Domain): void {
  const tune = domain.numatune;
  if (!tune) return;
  w.open('numatune');
  w.leafTag(NUMA_MEMORY, tune.memory.mode, tune.memory.nodeset);
  for (const m of tune.memnodes) w.leafTag(MEMNODE, m.cellid, m.mode, m.nodeset);
  w.close();
}

function launchSecurityXml(w: XmlWriter, domain: Domain): void {
  const sec = domain.launchSecurity;
  if (!sec) return;
  w.openTag(LAUNCH_SECURITY, sec.type);
  if (sec.cbitpos !== undefined) w.leaf('cbitpos', undefined, String(sec.cbitpos));
  if (sec.reducedPhysBits !== undefined) w.leaf('reducedPhysBits', undefined, String(sec.reducedPhysBits));
  w.leaf('policy', undefined, sec.policy);
  if (sec.dhCert !== undefined) w.leaf('dhCert', undefined, sec.dhCert);
  if (sec.session !== undefined) w.leaf('session', undefined, sec.session);
  w.close();
}

function writeDomain(w: XmlWriter, domain: Domain): void {
  w.openTag(DOMAIN, domain.type ?? 'kvm', QEMU_NS);
  w.leaf('name', undefined, domain.name);
  memoryXml(w, domain);
  osXml(w, domain);
  sysinfoXml(w, domain);
  devicesXml(w, domain.devices);
  clockXml(w, domain);
  if (domain.qemuCommandline.length > 0) {
    w.open('qemu:commandline');
    for (const value of domain.qemuCommandline) w.leafTag(QEMU_ARG, value);
    w.close();
  }
  featuresXml(w, domain);
  cpuXml(w, domain);
  if (domain.vcpu !== undefined) w.textTag(VCPU, String(domain.vcpu), 'static');
  if (domain.vcpus.length > 0) {
    w.open('vcpus');
    for (const v of domain.vcpus) w.leafTag(VCPU_STATE, v.id, v.enabled, v.hotpluggable);
    w.close();
  }
  if (domain.iothreads !== undefined) w.leaf('iothreads', undefined, String(domain.iothreads));
  cputuneXml(w, domain);
  numatuneXml(w, domain);
  launchSecurityXml(w, domain);
  if (domain.onReboot) w.leaf('on_reboot', undefined, domain.onReboot);
  w.close();
}

export function toDomainXml(domain: Domain): string {
  const w = new XmlWriter();
  writeDomain(w, domain);
  return w.toString();
}

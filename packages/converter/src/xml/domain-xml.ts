// toDomainXml(domain): the libvirt domain document. Top-level order follows KubeVirt's schema.go;
// libvirt's schema interleaves these elements, so the order is for readers and golden diffs only.
// Empty elements KubeVirt writes by habit (<bios/>, empty sections inside <sysinfo>, <uid/>) are omitted:
// libvirt's schema rejects some of them.
import type { Domain, HypervFeatureState, SysinfoEntry } from '../domain/types.js';
import { devicesXml } from './devices-xml.js';
import { XmlWriter, type Attrs } from './writer.js';

export const QEMU_NS = 'http://libvirt.org/schemas/domain/qemu/1.0';

function osXml(w: XmlWriter, domain: Domain): void {
  const os = domain.os;
  w.open('os', { firmware: os.firmware });
  if (os.firmwareFeatures.length > 0) {
    w.open('firmware');
    for (const f of os.firmwareFeatures) w.leaf('feature', { enabled: f.enabled, name: f.name });
    w.close();
  }
  w.leaf('type', { arch: os.type.arch, machine: os.type.machine }, os.type.value);
  if (os.acpiTables.length > 0) {
    w.open('acpi');
    for (const t of os.acpiTables) w.leaf('table', { type: t.type }, t.path);
    w.close();
  }
  if (os.smbiosMode) w.leaf('smbios', { mode: os.smbiosMode });
  if (os.bootmenu) w.leaf('bootmenu', { enable: os.bootmenu.enable, timeout: os.bootmenu.timeout });
  if (os.biosUseSerial) w.leaf('bios', { useserial: 'yes' });
  if (os.loader) {
    const l = os.loader;
    w.leaf('loader', { readonly: l.readonly, secure: l.secure, type: l.type }, l.path);
  }
  if (os.nvram) w.leaf('nvram', { template: os.nvram.template, format: os.nvram.format }, os.nvram.path);
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
    for (const e of list) w.leaf('entry', { name: e.name }, e.value);
    w.close();
  };
  w.open('sysinfo', { type: 'smbios' });
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
  if (f.hypervPassthrough) w.leaf('hyperv', { mode: 'passthrough' });
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
    if (f.kvm.hidden) w.leaf('hidden', { state: f.kvm.hidden });
    if (f.kvm.hintDedicated) w.leaf('hint-dedicated', { state: f.kvm.hintDedicated });
    w.close();
  }
  if (f.pvspinlock) w.leaf('pvspinlock', { state: f.pvspinlock });
  if (f.pmu) w.leaf('pmu', { state: f.pmu });
  if (f.vmport) w.leaf('vmport', { state: f.vmport });
  w.close();
}

function cpuXml(w: XmlWriter, domain: Domain): void {
  const cpu = domain.cpu;
  if (!cpu) return;
  const t = cpu.topology;
  w.open('cpu', { mode: cpu.mode });
  if (cpu.model !== undefined) w.leaf('model', undefined, cpu.model);
  w.leaf('topology', { sockets: t.sockets, cores: t.cores, threads: t.threads });
  for (const f of cpu.features) w.leaf('feature', { name: f.name, policy: f.policy });
  if (cpu.numaCells.length > 0) {
    w.open('numa');
    for (const c of cpu.numaCells) {
      const attrs = { id: c.id, cpus: c.cpus, memory: c.memoryKiB, unit: 'KiB' };
      if (!c.distances?.length) {
        w.leaf('cell', attrs);
        continue;
      }
      w.open('cell', attrs);
      w.open('distances');
      for (const d of c.distances) w.leaf('sibling', { id: d.id, value: d.value });
      w.close();
      w.close();
    }
    w.close();
  }
  w.close();
}

function memoryXml(w: XmlWriter, domain: Domain): void {
  if (domain.memoryBytes !== undefined) w.leaf('memory', { unit: 'b' }, String(domain.memoryBytes));
  const max = domain.maxMemory;
  if (max) w.leaf('maxMemory', { unit: 'b', slots: max.slots }, String(max.bytes));
  const mb = domain.memoryBacking;
  if (mb) {
    w.open('memoryBacking');
    if (mb.hugepagePages?.length) {
      w.open('hugepages');
      for (const p of mb.hugepagePages) w.leaf('page', { size: p.sizeBytes, unit: 'b', nodeset: p.nodeset });
      w.close();
    } else if (mb.hugepages) w.leaf('hugepages');
    if (mb.nosharepages) w.leaf('nosharepages');
    if (mb.sourceMemfd) w.leaf('source', { type: 'memfd' });
    if (mb.accessShared) w.leaf('access', { mode: 'shared' });
    if (mb.allocationImmediate) w.leaf('allocation', { mode: 'immediate' });
    w.close();
  }
}

function clockXml(w: XmlWriter, domain: Domain): void {
  const clock = domain.clock;
  if (!clock) return;
  w.open('clock', { offset: clock.offset, adjustment: clock.adjustment, timezone: clock.timezone });
  for (const t of clock.timers) {
    w.leaf('timer', {
      name: t.name,
      tickpolicy: t.tickpolicy,
      present: t.present,
      track: t.track,
      frequency: t.frequency,
    });
  }
  w.close();
}

function cputuneXml(w: XmlWriter, domain: Domain): void {
  const tune = domain.cputune;
  if (!tune) return;
  w.open('cputune');
  for (const p of tune.vcpupins) w.leaf('vcpupin', { vcpu: p.vcpu, cpuset: p.cpuset });
  if (tune.emulatorpin !== undefined) w.leaf('emulatorpin', { cpuset: tune.emulatorpin });
  for (const p of tune.iothreadpins) w.leaf('iothreadpin', { iothread: p.iothread, cpuset: p.cpuset });
  const sched = tune.vcpusched;
  if (sched) w.leaf('vcpusched', { vcpus: sched.vcpus, scheduler: sched.scheduler, priority: sched.priority });
  w.close();
}

function numatuneXml(w: XmlWriter, domain: Domain): void {
  const tune = domain.numatune;
  if (!tune) return;
  w.open('numatune');
  w.leaf('memory', { mode: tune.memory.mode, nodeset: tune.memory.nodeset });
  for (const m of tune.memnodes) w.leaf('memnode', { cellid: m.cellid, mode: m.mode, nodeset: m.nodeset });
  w.close();
}

function launchSecurityXml(w: XmlWriter, domain: Domain): void {
  const sec = domain.launchSecurity;
  if (!sec) return;
  w.open('launchSecurity', { type: sec.type });
  if (sec.cbitpos !== undefined) w.leaf('cbitpos', undefined, String(sec.cbitpos));
  if (sec.reducedPhysBits !== undefined) w.leaf('reducedPhysBits', undefined, String(sec.reducedPhysBits));
  w.leaf('policy', undefined, sec.policy);
  if (sec.dhCert !== undefined) w.leaf('dhCert', undefined, sec.dhCert);
  if (sec.session !== undefined) w.leaf('session', undefined, sec.session);
  w.close();
}

function writeDomain(w: XmlWriter, domain: Domain): void {
  w.open('domain', { type: domain.type ?? 'kvm', 'xmlns:qemu': QEMU_NS });
  w.leaf('name', undefined, domain.name);
  memoryXml(w, domain);
  osXml(w, domain);
  sysinfoXml(w, domain);
  devicesXml(w, domain.devices);
  clockXml(w, domain);
  if (domain.qemuCommandline.length > 0) {
    w.open('qemu:commandline');
    for (const value of domain.qemuCommandline) w.leaf('qemu:arg', { value });
    w.close();
  }
  featuresXml(w, domain);
  cpuXml(w, domain);
  if (domain.vcpu !== undefined) w.leaf('vcpu', { placement: 'static' }, String(domain.vcpu));
  if (domain.vcpus.length > 0) {
    w.open('vcpus');
    for (const v of domain.vcpus) w.leaf('vcpu', { id: v.id, enabled: v.enabled, hotpluggable: v.hotpluggable });
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

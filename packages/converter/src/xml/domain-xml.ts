// toDomainXml(domain): the libvirt domain document. Top-level order follows KubeVirt's schema.go;
// libvirt's schema interleaves these elements, so the order is for readers and golden diffs only.
// Empty elements KubeVirt writes by habit (<bios/>, empty <sysinfo> sections, <uid/>) are omitted:
// libvirt's schema rejects some of them.
import type { Domain, HypervFeatureState } from '../domain/types.js';
import { devicesXml } from './devices-xml.js';
import { el, serialize, type XmlNode } from './node.js';

export const QEMU_NS = 'http://libvirt.org/schemas/domain/qemu/1.0';

function osXml(domain: Domain): XmlNode {
  const os = domain.os;
  return el('os', { firmware: os.firmware }, [
    os.firmwareFeatures.length > 0 &&
      el(
        'firmware',
        {},
        os.firmwareFeatures.map((f) => el('feature', { enabled: f.enabled, name: f.name })),
      ),
    el('type', { arch: os.type.arch, machine: os.type.machine }, [], os.type.value),
    os.acpiTables.length > 0 &&
      el(
        'acpi',
        {},
        os.acpiTables.map((t) => el('table', { type: t.type }, [], t.path)),
      ),
    os.smbiosMode && el('smbios', { mode: os.smbiosMode }),
    os.bootmenu && el('bootmenu', { enable: os.bootmenu.enable, timeout: os.bootmenu.timeout }),
    os.biosUseSerial && el('bios', { useserial: 'yes' }),
    os.loader &&
      el(
        'loader',
        { readonly: os.loader.readonly, secure: os.loader.secure, type: os.loader.type },
        [],
        os.loader.path,
      ),
    os.nvram && el('nvram', { template: os.nvram.template, format: os.nvram.format }, [], os.nvram.path),
    os.kernel !== undefined && el('kernel', {}, [], os.kernel),
    os.initrd !== undefined && el('initrd', {}, [], os.initrd),
    os.cmdline !== undefined && el('cmdline', {}, [], os.cmdline),
  ]);
}

function sysinfoXml(domain: Domain): XmlNode | undefined {
  const s = domain.sysinfo;
  if (!s || (s.system.length === 0 && s.chassis.length === 0)) return undefined;
  const entries = (list: { name: string; value: string }[]) =>
    list.map((e) => el('entry', { name: e.name }, [], e.value));
  return el('sysinfo', { type: 'smbios' }, [
    s.system.length > 0 && el('system', {}, entries(s.system)),
    s.chassis.length > 0 && el('chassis', {}, entries(s.chassis)),
  ]);
}

function hypervXml(f: HypervFeatureState): XmlNode {
  return el(f.name, { state: f.state, ...Object.fromEntries(f.attrs ?? []) }, (f.children ?? []).map(hypervXml));
}

function featuresXml(domain: Domain): XmlNode {
  const f = domain.features;
  return el('features', {}, [
    f.acpi && el('acpi'),
    f.apic && el('apic'),
    f.hypervPassthrough && el('hyperv', { mode: 'passthrough' }),
    f.hyperv && f.hyperv.length > 0 && el('hyperv', {}, f.hyperv.map(hypervXml)),
    f.smm && el('smm'),
    f.kvm &&
      el('kvm', {}, [
        f.kvm.hidden && el('hidden', { state: f.kvm.hidden }),
        f.kvm.hintDedicated && el('hint-dedicated', { state: f.kvm.hintDedicated }),
      ]),
    f.pvspinlock && el('pvspinlock', { state: f.pvspinlock }),
    f.pmu && el('pmu', { state: f.pmu }),
    f.vmport && el('vmport', { state: f.vmport }),
  ]);
}

function cpuXml(domain: Domain): XmlNode | undefined {
  const cpu = domain.cpu;
  if (!cpu) return undefined;
  const t = cpu.topology;
  return el('cpu', { mode: cpu.mode }, [
    cpu.model !== undefined && el('model', {}, [], cpu.model),
    el('topology', { sockets: t.sockets, cores: t.cores, threads: t.threads }),
    ...cpu.features.map((f) => el('feature', { name: f.name, policy: f.policy })),
    cpu.numaCells.length > 0 &&
      el(
        'numa',
        {},
        cpu.numaCells.map((c) => el('cell', { id: c.id, cpus: c.cpus, memory: c.memoryKiB, unit: 'KiB' })),
      ),
  ]);
}

export function domainToXmlNode(domain: Domain): XmlNode {
  const mb = domain.memoryBacking;
  const clock = domain.clock;
  return el('domain', { type: domain.type ?? 'kvm', 'xmlns:qemu': QEMU_NS }, [
    el('name', {}, [], domain.name),
    domain.memoryBytes !== undefined && el('memory', { unit: 'b' }, [], String(domain.memoryBytes)),
    domain.maxMemory &&
      el('maxMemory', { unit: 'b', slots: domain.maxMemory.slots }, [], String(domain.maxMemory.bytes)),
    mb &&
      el('memoryBacking', {}, [
        mb.hugepages && el('hugepages'),
        mb.sourceMemfd && el('source', { type: 'memfd' }),
        mb.accessShared && el('access', { mode: 'shared' }),
      ]),
    osXml(domain),
    sysinfoXml(domain),
    devicesXml(domain.devices),
    clock &&
      el(
        'clock',
        { offset: clock.offset, adjustment: clock.adjustment, timezone: clock.timezone },
        clock.timers.map((t) =>
          el('timer', {
            name: t.name,
            tickpolicy: t.tickpolicy,
            present: t.present,
            track: t.track,
            frequency: t.frequency,
          }),
        ),
      ),
    domain.qemuCommandline.length > 0 &&
      el(
        'qemu:commandline',
        {},
        domain.qemuCommandline.map((value) => el('qemu:arg', { value })),
      ),
    featuresXml(domain),
    cpuXml(domain),
    domain.vcpu !== undefined && el('vcpu', { placement: 'static' }, [], String(domain.vcpu)),
    domain.vcpus.length > 0 &&
      el(
        'vcpus',
        {},
        domain.vcpus.map((v) => el('vcpu', { id: v.id, enabled: v.enabled, hotpluggable: v.hotpluggable })),
      ),
    domain.iothreads !== undefined && el('iothreads', {}, [], String(domain.iothreads)),
    domain.onReboot && el('on_reboot', {}, [], domain.onReboot),
  ]);
}

export function toDomainXml(domain: Domain): string {
  return serialize(domainToXmlNode(domain));
}

// <features>: ACPI/APIC/SMM, Hyper-V enlightenments, KVM hiding, pvspinlock, vmport.
import type { HypervFeatureState } from '../domain/types.js';
import type { HypervFeatures } from '../vmi/types.js';
import { onOff, type Configurator } from './configurator.js';

function hyperv(h: HypervFeatures): HypervFeatureState[] {
  const out: HypervFeatureState[] = [];
  const simple = (name: string, t: { enabled?: boolean } | undefined) => {
    if (t) out.push({ name, state: onOff(t.enabled) });
  };
  simple('relaxed', h.relaxed);
  simple('vapic', h.vapic);
  if (h.spinlocks) {
    const retries = h.spinlocks.spinlocks;
    out.push({
      name: 'spinlocks',
      state: onOff(h.spinlocks.enabled),
      attrs: retries !== undefined ? [['retries', String(retries)]] : [],
    });
  }
  simple('vpindex', h.vpindex);
  simple('runtime', h.runtime);
  simple('synic', h.synic);
  if (h.synictimer) {
    const direct = h.synictimer.direct;
    out.push({
      name: 'stimer',
      state: onOff(h.synictimer.enabled),
      children: direct ? [{ name: 'direct', state: onOff(direct.enabled) }] : [],
    });
  }
  simple('reset', h.reset);
  if (h.vendorid) {
    const value = h.vendorid.vendorid;
    out.push({ name: 'vendor_id', state: onOff(h.vendorid.enabled), attrs: value ? [['value', value]] : [] });
  }
  simple('frequencies', h.frequencies);
  simple('reenlightenment', h.reenlightenment);
  if (h.tlbflush) {
    const children: HypervFeatureState[] = [];
    if (h.tlbflush.direct) children.push({ name: 'direct', state: onOff(h.tlbflush.direct.enabled) });
    if (h.tlbflush.extended) children.push({ name: 'extended', state: onOff(h.tlbflush.extended.enabled) });
    out.push({ name: 'tlbflush', state: onOff(h.tlbflush.enabled), children });
  }
  simple('ipi', h.ipi);
  simple('evmcs', h.evmcs);
  return out;
}

export const features: Configurator = {
  name: 'features',
  configure(vmi, domain, ctx) {
    const spec = vmi.spec.domain.features;
    const f = domain.features;
    if (spec) {
      f.acpi = spec.acpi?.enabled !== false;
      f.apic = spec.apic !== undefined && spec.apic.enabled !== false;
      f.smm = spec.smm !== undefined && spec.smm.enabled !== false;
      // Explicit enlightenments win over passthrough when a VMI names both, as in KubeVirt.
      if (spec.hyperv) f.hyperv = hyperv(spec.hyperv);
      else if (spec.hypervPassthrough?.enabled) f.hypervPassthrough = true;
      if (spec.kvm) f.kvm = { hidden: spec.kvm.hidden ? 'on' : 'off' };
      if (spec.pvspinlock) f.pvspinlock = onOff(spec.pvspinlock.enabled);
      // vmport is only switched off where a features section exists, as KubeVirt does.
      if (ctx.arch.hasVmport) f.vmport = 'off';
    }
    if (vmi.spec.domain.cpu?.dedicatedCpuPlacement && ctx.arch.arch === 'amd64') {
      f.kvm = { ...(f.kvm ?? {}), hintDedicated: 'on' };
    }
  },
};

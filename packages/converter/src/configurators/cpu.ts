// <cpu>, <vcpu> and <vcpus>: topology, model/mode, features, CPU hot-plug and the synthetic NUMA cell
// that memfd-backed memory needs.
import type { Configurator } from './configurator.js';
import { guestMemoryBytes } from './memory.js';

const PASSTHROUGH_MODES = new Set(['host-model', 'host-passthrough']);

export const cpu: Configurator = {
  name: 'cpu',
  configure(vmi, domain, ctx) {
    const spec = vmi.spec.domain.cpu;
    const topology = { ...ctx.topology };
    const current = ctx.vcpus;
    const model = spec?.model;
    // TCG emulating another architecture has no host CPU to model or pass through: QEMU's "max" model, with
    // every feature it can emulate, replaces both (an explicitly named model stays).
    const emulatedMax = ctx.raw.allowCrossArchEmulation && (!model || PASSTHROUGH_MODES.has(model));
    const mode = emulatedMax
      ? 'custom'
      : !model
        ? ctx.arch.defaultCpuMode
        : PASSTHROUGH_MODES.has(model)
          ? (model as 'host-model' | 'host-passthrough')
          : 'custom';
    // The policy as the VMI gives it: KubeVirt writes none when none is given (libvirt-compat then writes
    // libvirt's default, which its schema requires).
    const features: { name: string; policy?: string }[] = (spec?.features ?? []).map((f) => ({
      name: f.name,
      policy: f.policy || undefined,
    }));
    // KubeVirt disables MPX for custom models on x86: newer hosts lack it and the guest would fail to start.
    if (
      spec &&
      ctx.arch.mpxValidation &&
      !PASSTHROUGH_MODES.has(model ?? '') &&
      !features.some((f) => f.name === 'mpx')
    ) {
      features.push({ name: 'mpx', policy: 'disable' });
    }
    let vcpu = current;
    if (spec?.maxSockets && ctx.arch.cpuHotplug) {
      topology.sockets = spec.maxSockets;
      vcpu = topology.sockets * topology.cores * topology.threads;
      const perSocket = topology.cores * topology.threads;
      for (let id = 0; id < vcpu; id++) {
        domain.vcpus.push({ id, enabled: id < current ? 'yes' : 'no', hotpluggable: id >= perSocket ? 'yes' : 'no' });
      }
    }
    domain.vcpu = vcpu;
    domain.cpu = {
      mode,
      model: emulatedMax ? 'max' : mode === 'custom' ? model : undefined,
      topology,
      features,
      numaCells: [],
    };
    if (ctx.memfdRequired && !spec?.numa && ctx.arch.arch !== 's390x') {
      const kib = guestMemoryBytes(vmi) / 1024n;
      domain.cpu.numaCells.push({ id: 0, cpus: `0-${vcpu - 1}`, memoryKiB: kib });
    }
  },
};

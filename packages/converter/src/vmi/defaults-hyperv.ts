// Hyper-V enlightenments that need another one: KubeVirt's webhook switches the needed one on when the
// user left it unset (QEMU would refuse the domain otherwise), and leaves a conflict for validation to
// report. eVMCS also needs the guest CPU's vmx feature.
import type { HypervFeatures, Toggle, VirtualMachineInstance } from './types.js';

type Key = keyof HypervFeatures;

const enabled = (t: Toggle | undefined): boolean => t?.enabled === true;
const unset = (t: Toggle | undefined): boolean => t?.enabled === undefined;

// Leaves first, as KubeVirt walks them: synictimer may switch synic on, whose own need is checked last.
const NEEDS: ReadonlyArray<[Key, Key]> = [
  ['evmcs', 'vapic'],
  ['ipi', 'vpindex'],
  ['tlbflush', 'vpindex'],
  ['synictimer', 'synic'],
  ['synic', 'vpindex'],
];

export function applyHypervDependencies(vmi: VirtualMachineInstance): void {
  const hyperv = vmi.spec.domain.features?.hyperv;
  if (!hyperv) return;
  for (const [feature, needed] of NEEDS) {
    if (!enabled(hyperv[feature] as Toggle | undefined)) continue;
    const requirement = hyperv[needed] as Toggle | undefined;
    if (unset(requirement)) {
      if (requirement) requirement.enabled = true;
      else (hyperv as Record<string, Toggle>)[needed] = { enabled: true };
    } else if (!enabled(requirement)) {
      // Explicitly off: KubeVirt stops here and lets validation refuse the VMI.
      break;
    }
  }
  const evmcs = hyperv.evmcs;
  if (evmcs && evmcs.enabled !== false) {
    const cpu = (vmi.spec.domain.cpu ??= {});
    const features = (cpu.features ??= []);
    const vmx = features.find((f) => f.name === 'vmx');
    if (vmx) vmx.policy = 'require';
    else features.push({ name: 'vmx', policy: 'require' });
  }
}

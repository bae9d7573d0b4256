// Test helper: a small defaulted VMI and a one-configurator runner.
import type { Configurator } from '../configurators/configurator.js';
import { resolveContext } from '../context/resolve.js';
import { emptyDomain, type Domain } from '../domain/types.js';
import { ConverterContext } from '../gen/virtlauncher/converter/v1/converter.js';
import type { DomainSpec, VirtualMachineInstance } from '../vmi/types.js';

export function vmi(
  domain: Partial<DomainSpec> = {},
  spec: Partial<VirtualMachineInstance['spec']> = {},
): VirtualMachineInstance {
  return {
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachineInstance',
    metadata: { name: 'vm', namespace: 'ns', uid: 'uid-1' },
    spec: { domain: { devices: {}, resources: { requests: { memory: '1Gi' } }, ...domain }, ...spec },
  };
}

export function run(
  step: Configurator,
  v: VirtualMachineInstance,
  ctx: Partial<ConverterContext> = {},
  domain: Domain = emptyDomain(),
): Domain {
  step.configure(v, domain, resolveContext(ConverterContext.fromPartial(ctx), v));
  return domain;
}

/**
 * A VMI as the JSON the API serves, for whole conversions through parseVmi: 64Mi of memory and no pod
 * interface or graphics unless `domain` says otherwise (its devices are merged over those two switches).
 */
export function vmiJson(name: string, domain: Record<string, unknown>, spec: Record<string, unknown> = {}): string {
  const devices = { autoattachPodInterface: false, autoattachGraphicsDevice: false, ...(domain.devices as object) };
  return JSON.stringify({
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachineInstance',
    metadata: { name, namespace: 'ns', uid: 'u1' },
    spec: { domain: { resources: { requests: { memory: '64Mi' } }, ...domain, devices }, ...spec },
  });
}

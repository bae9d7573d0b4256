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

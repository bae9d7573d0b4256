// Emulated TPM 2.0; a persistent one needs the CRB model so its state survives.
import type { Configurator } from './configurator.js';

export const tpm: Configurator = {
  name: 'tpm',
  configure(vmi, domain) {
    const spec = vmi.spec.domain.devices.tpm;
    if (!spec || spec.enabled === false) return;
    domain.devices.tpms.push(spec.persistent ? { model: 'tpm-crb', persistentState: true } : { model: 'tpm-tis' });
  },
};

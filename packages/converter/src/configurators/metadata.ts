// Domain name <namespace>_<name> and the Kubernetes identity kept beside it.
import type { Configurator } from './configurator.js';

export const metadata: Configurator = {
  name: 'metadata',
  configure(vmi, domain) {
    const meta = vmi.metadata;
    domain.name = `${meta.namespace ?? ''}_${meta.name}`;
    domain.metadata = { name: meta.name, namespace: meta.namespace ?? '', uid: meta.uid ?? '' };
  },
};

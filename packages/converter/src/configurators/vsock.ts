// VSOCK device; the CID is allocated by virt-handler and published in status.
import type { Configurator } from './configurator.js';

export const vsock: Configurator = {
  name: 'vsock',
  configure(vmi, domain) {
    const cid = vmi.status?.VSOCKCID;
    if (cid === undefined || cid === null) return;
    // KubeVirt always writes the non-transitional model here, whatever useVirtioTransitional says.
    domain.devices.vsock = { model: 'virtio-non-transitional', cid };
  },
};

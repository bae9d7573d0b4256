// VSOCK device; the CID is allocated by virt-handler and published in status.
import type { Configurator } from './configurator.js';

/**
 * The CID a guest has in a vsock namespace of its own (ns_mode "local"): each pod's namespace starts over, so
 * KubeVirt gives every guest this one, the first CID after the reserved ones, and virt-handler dials it.
 */
export const LOCAL_NAMESPACE_CID = 3;

export const vsock: Configurator = {
  name: 'vsock',
  configure(vmi, domain, ctx) {
    const cid = vmi.status?.VSOCKCID;
    if (cid === undefined || cid === null) return;
    // KubeVirt always writes the non-transitional model here, whatever useVirtioTransitional says.
    domain.devices.vsock = {
      model: 'virtio-non-transitional',
      cid: ctx.raw.vsockLocalNamespace ? LOCAL_NAMESPACE_CID : cid,
    };
  },
};

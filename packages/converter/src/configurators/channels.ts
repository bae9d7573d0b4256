// Guest agent channel (always) and the vhostmd channel for downward metrics.
import type { Configurator } from './configurator.js';

export const channels: Configurator = {
  name: 'channels',
  configure(vmi, domain, ctx) {
    domain.devices.channels.push({ type: 'unix', target: { type: 'virtio', name: 'org.qemu.guest_agent.0' } });
    if (vmi.spec.domain.devices.downwardMetrics) {
      domain.devices.channels.push({
        type: 'unix',
        source: { mode: 'bind', path: `${ctx.paths.kubevirtPrivateDir}/downwardmetrics-channel/downwardmetrics.sock` },
        target: { type: 'virtio', name: 'org.github.vhostmd.1' },
      });
    }
  },
};

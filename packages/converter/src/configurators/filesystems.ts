// virtiofs shares, served by virtiofsd sidecars over sockets.
import type { Configurator } from './configurator.js';

export const filesystems: Configurator = {
  name: 'filesystems',
  configure(vmi, domain, ctx) {
    for (const fs of vmi.spec.domain.devices.filesystems ?? []) {
      if (!fs.virtiofs) continue;
      domain.devices.filesystems.push({
        socket: `${ctx.paths.kubevirtRunDir}/virtiofs-containers/${fs.name}.sock`,
        target: fs.name,
      });
    }
  },
};

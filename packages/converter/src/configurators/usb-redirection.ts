// Client USB passthrough: four redirection channels on unix sockets.
import type { Configurator } from './configurator.js';

export const usbRedirection: Configurator = {
  name: 'usb-redirection',
  configure(vmi, domain, ctx) {
    if (!vmi.spec.domain.devices.clientPassthrough) return;
    for (let i = 0; i < 4; i++) {
      domain.devices.redirdevs.push({
        path: `${ctx.paths.kubevirtPrivateDir}/${vmi.metadata.uid ?? ''}/virt-usbredir-${i}`,
      });
    }
  },
};

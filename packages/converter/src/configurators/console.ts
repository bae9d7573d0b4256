// Serial console on a unix socket (virt-handler proxies it) plus a pty console bound to it.
import type { Configurator } from './configurator.js';

export const consoleSerial: Configurator = {
  name: 'console',
  configure(vmi, domain, ctx) {
    if (vmi.spec.domain.devices.autoattachSerialConsole === false) return;
    const path = `${ctx.paths.kubevirtPrivateDir}/${vmi.metadata.uid ?? ''}/virt-serial0`;
    // The VMI's own choice wins; unset, the cluster's setting (the context) decides, as in KubeVirt.
    const log = vmi.spec.domain.devices.logSerialConsole ?? ctx.raw.serialConsoleLog;
    domain.devices.consoles.push({ type: 'pty', targetType: 'serial', port: 0 });
    domain.devices.serials.push({
      type: 'unix',
      port: 0,
      path,
      log: log ? { file: `${path}-log`, append: 'on' } : undefined,
    });
  },
};

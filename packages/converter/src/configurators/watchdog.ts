// Watchdog: i6300esb on x86, diag288 on s390x; ARM has none.
import { ConversionError } from '../errors.js';
import { userAlias, type Configurator } from './configurator.js';

export const watchdog: Configurator = {
  name: 'watchdog',
  configure(vmi, domain, ctx) {
    const spec = vmi.spec.domain.devices.watchdog;
    if (!spec) return;
    const field = 'spec.domain.devices.watchdog';
    if (ctx.arch.arch === 'arm64')
      throw new ConversionError(field, spec, 'watchdog is not supported on architecture ARM64');
    const model = ctx.arch.arch === 's390x' ? 'diag288' : 'i6300esb';
    const device = model === 'diag288' ? spec.diag288 : spec.i6300esb;
    if (!device) throw new ConversionError(field, spec, `needs a ${model} watchdog on ${ctx.arch.arch}`);
    domain.devices.watchdogs.push({ model, action: device.action || 'reset', alias: userAlias(spec.name) });
  },
};

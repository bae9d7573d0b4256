// Sound card: ich9 unless ac97 is asked for.
import { ConversionError, quote } from '../errors.js';
import { userAlias, type Configurator } from './configurator.js';

export const sound: Configurator = {
  name: 'sound',
  configure(vmi, domain) {
    const spec = vmi.spec.domain.devices.sound;
    if (!spec) return;
    const model = spec.model || 'ich9';
    if (model !== 'ich9' && model !== 'ac97') {
      throw new ConversionError('spec.domain.devices.sound.model', spec.model, `${quote(model)} is not ich9 or ac97`);
    }
    domain.devices.sounds.push({ model, alias: userAlias(spec.name) });
  },
};

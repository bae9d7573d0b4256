// Tablets from the spec, plus the keyboard/tablet some architectures need for a usable console.
import { ConversionError } from '../errors.js';
import { userAlias, type Configurator } from './configurator.js';

export const inputs: Configurator = {
  name: 'inputs',
  configure(vmi, domain, ctx) {
    const specInputs = vmi.spec.domain.devices.inputs ?? [];
    specInputs.forEach((input, i) => {
      const bus = input.bus || 'usb';
      if (bus !== 'virtio' && bus !== 'usb') {
        throw new ConversionError(`spec.domain.devices.inputs[${i}].bus`, input.bus, 'input contains unsupported bus');
      }
      if (input.type !== 'tablet') {
        throw new ConversionError(
          `spec.domain.devices.inputs[${i}].type`,
          input.type,
          'input contains unsupported type',
        );
      }
      domain.devices.inputs.push({
        type: 'tablet',
        bus,
        model: bus === 'virtio' ? 'virtio' : undefined,
        alias: userAlias(input.name),
      });
    });
    if (vmi.spec.domain.devices.autoattachGraphicsDevice === false) return;
    if (ctx.arch.arch === 'arm64') {
      if (!specInputs.some((i) => i.type === 'tablet')) domain.devices.inputs.push({ type: 'tablet', bus: 'usb' });
      domain.devices.inputs.push({ type: 'keyboard', bus: 'usb' });
    } else if (ctx.arch.arch === 's390x') {
      domain.devices.inputs.push({ type: 'keyboard', bus: 'virtio' });
    }
  },
};

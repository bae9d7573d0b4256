import { describe, expect, it } from 'vitest';
import { run, vmi } from '../testing/fixture.js';
import { inputs } from './inputs.js';

describe('inputs', () => {
  it('virtio tablets get model virtio and a ua- alias; usb is the default bus', () => {
    const d = run(
      inputs,
      vmi({
        devices: {
          inputs: [
            { name: 't', type: 'tablet', bus: 'virtio' },
            { name: 'u', type: 'tablet' },
          ],
        },
      }),
    );
    expect(d.devices.inputs).toEqual([
      { type: 'tablet', bus: 'virtio', model: 'virtio', alias: { name: 'ua-t' } },
      { type: 'tablet', bus: 'usb', model: undefined, alias: { name: 'ua-u' } },
    ]);
  });
  it('rejects other types with the field path', () => {
    expect(() => run(inputs, vmi({ devices: { inputs: [{ name: 'k', type: 'keyboard' }] } }))).toThrow(
      'spec.domain.devices.inputs[0].type',
    );
  });
  it('arm64 adds a usb tablet and keyboard; s390x a virtio keyboard', () => {
    expect(run(inputs, vmi(), { architecture: 'arm64' }).devices.inputs.map((i) => i.type)).toEqual([
      'tablet',
      'keyboard',
    ]);
    expect(run(inputs, vmi(), { architecture: 's390x' }).devices.inputs).toEqual([{ type: 'keyboard', bus: 'virtio' }]);
  });
});

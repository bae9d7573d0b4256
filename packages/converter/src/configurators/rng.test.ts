import { describe, expect, it } from 'vitest';
import { run, vmi } from '../testing/fixture.js';
import { rng } from './rng.js';

describe('rng', () => {
  it('virtio rng on urandom, iommu under SEV, transitional when asked', () => {
    expect(run(rng, vmi()).devices.rng).toBeUndefined();
    expect(run(rng, vmi({ devices: { rng: {} } })).devices.rng).toEqual({
      model: 'virtio-non-transitional',
      backend: '/dev/urandom',
      iommu: undefined,
    });
    expect(
      run(rng, vmi({ devices: { rng: {}, useVirtioTransitional: true } }), { useLaunchSecuritySev: true }).devices.rng,
    ).toEqual({
      model: 'virtio-transitional',
      backend: '/dev/urandom',
      iommu: 'on',
    });
    expect(run(rng, vmi({ devices: { rng: {} } }), { architecture: 's390x' }).devices.rng?.model).toBe('virtio');
  });
});

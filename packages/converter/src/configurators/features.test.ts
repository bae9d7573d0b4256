import { describe, expect, it } from 'vitest';
import { run, vmi } from '../testing/fixture.js';
import { features } from './features.js';

describe('features', () => {
  it('empty without a features section', () => {
    expect(run(features, vmi()).features).toEqual({});
  });
  it('acpi on unless disabled, vmport off on amd64, hyperv states and attributes', () => {
    const f = run(
      features,
      vmi({
        features: { acpi: {}, hyperv: { relaxed: {}, spinlocks: { spinlocks: 8191 }, vendorid: { vendorid: 'kv' } } },
      }),
    ).features;
    expect(f.acpi).toBe(true);
    expect(f.vmport).toBe('off');
    expect(f.hyperv).toEqual([
      { name: 'relaxed', state: 'on' },
      { name: 'spinlocks', state: 'on', attrs: [['retries', '8191']] },
      { name: 'vendor_id', state: 'on', attrs: [['value', 'kv']] },
    ]);
    expect(run(features, vmi({ features: { acpi: { enabled: false } } })).features.acpi).toBe(false);
  });
  it('hyperv passthrough applies when no enlightenment list is given; no vmport on s390x', () => {
    const f = run(features, vmi({ features: { hypervPassthrough: { enabled: true } } }), {
      architecture: 's390x',
    }).features;
    expect(f.hypervPassthrough).toBe(true);
    expect(f.hyperv).toBeUndefined();
    expect(f.vmport).toBeUndefined();
  });

  it('an enlightenment list wins over hyperv passthrough, as in KubeVirt', () => {
    const f = run(
      features,
      vmi({ features: { hypervPassthrough: { enabled: true }, hyperv: { relaxed: {} } } }),
    ).features;
    expect(f.hypervPassthrough).toBeUndefined();
    expect(f.hyperv).toEqual([{ name: 'relaxed', state: 'on' }]);
  });
});

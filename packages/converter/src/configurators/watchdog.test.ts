import { describe, expect, it } from 'vitest';
import { run, vmi } from '../testing/fixture.js';
import { watchdog } from './watchdog.js';

describe('watchdog', () => {
  it('i6300esb with its action on amd64, error on arm64', () => {
    const v = vmi({ devices: { watchdog: { name: 'w', i6300esb: { action: 'poweroff' } } } });
    expect(run(watchdog, v).devices.watchdogs).toEqual([
      { model: 'i6300esb', action: 'poweroff', alias: { name: 'ua-w' } },
    ]);
    expect(() => run(watchdog, v, { architecture: 'arm64' })).toThrow(
      'watchdog is not supported on architecture ARM64',
    );
  });
});

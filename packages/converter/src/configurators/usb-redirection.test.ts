import { describe, expect, it } from 'vitest';
import { run, vmi } from '../testing/fixture.js';
import { usbRedirection } from './usb-redirection.js';

describe('usb redirection', () => {
  it('four sockets with client passthrough', () => {
    const d = run(usbRedirection, vmi({ devices: { clientPassthrough: {} } }));
    expect(d.devices.redirdevs.map((r) => r.path)).toEqual(
      [0, 1, 2, 3].map((i) => `/var/run/kubevirt-private/uid-1/virt-usbredir-${i}`),
    );
    expect(run(usbRedirection, vmi()).devices.redirdevs).toEqual([]);
  });
});

import { describe, expect, it } from 'vitest';
import { run, vmi } from '../testing/fixture.js';
import { vsock } from './vsock.js';

describe('vsock', () => {
  it('uses the CID from status, only when set', () => {
    const v = vmi();
    expect(run(vsock, v).devices.vsock).toBeUndefined();
    v.status = { VSOCKCID: 100 };
    expect(run(vsock, v, { useVirtioTransitional: true }).devices.vsock).toEqual({
      model: 'virtio-non-transitional',
      cid: 100,
    });
  });

  it('a pod in a local vsock namespace gives the guest CID 3, only when status has a CID', () => {
    const v = vmi();
    expect(run(vsock, v, { vsockLocalNamespace: true }).devices.vsock).toBeUndefined();
    v.status = { VSOCKCID: 1234 };
    expect(run(vsock, v, { vsockLocalNamespace: true }).devices.vsock).toEqual({
      model: 'virtio-non-transitional',
      cid: 3,
    });
  });
});

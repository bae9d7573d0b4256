// The bundled launcher holds this adapter twice (dist/cli.js loads the binding and connects, dist/launcher-main.cjs
// matches errors): a LibvirtError must be recognised by the copy that did not load the binding.
import { describe, expect, it } from 'vitest';
import { connectLibvirt, hasLibvirtCode } from './libvirt.js';
import type * as LibvirtAdapter from './libvirt.js';

describe('libvirt adapter', () => {
  it("recognises the binding's errors in a second copy of the module (as in the second bundle file)", async () => {
    const specifier = './libvirt.js?second-copy';
    const second = (await import(/* @vite-ignore */ specifier)) as typeof LibvirtAdapter;
    expect(second.hasLibvirtCode).not.toBe(hasLibvirtCode);
    // libvirt's own test driver: a real connection and a real NO_DOMAIN error, no daemon needed.
    const conn = await connectLibvirt('test:///default');
    try {
      const err = await conn.lookupDomainByName('no-such-domain').catch((e: unknown) => e);
      expect(hasLibvirtCode(err, 'NO_DOMAIN')).toBe(true);
      expect(second.hasLibvirtCode(err, 'NO_DOMAIN')).toBe(true);
      expect(second.hasLibvirtCode(new Error('Domain not found'), 'NO_DOMAIN')).toBe(false);
    } finally {
      await conn.close();
    }
  });
});

// The runtime calls (native/runtime.cc) against libvirt's test driver: each reaches libvirt off the JS thread
// and turns libvirt's refusal into a LibvirtError with its code.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ErrorCode, LibvirtError, connect } from './index.js';
import type { Connection } from './index.js';
import { testDomainXml, uniqueName } from './test-helpers.js';

describe('runtime calls on test:///default', () => {
  let conn: Connection;
  beforeAll(async () => {
    conn = await connect('test:///default');
  });
  afterAll(async () => {
    await conn.close();
  });

  it('setVcpus changes the live vCPU count of a running domain, and refuses more than its maximum', async () => {
    const dom = await conn.lookupDomainByName('test');
    const before = (await dom.getInfo()).nrVirtCpu;
    await dom.setVcpus(1, { live: true });
    expect((await dom.getInfo()).nrVirtCpu).toBe(1);
    const err = await dom.setVcpus(64, { live: true }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LibvirtError);
    expect((err as LibvirtError).code).toBe(ErrorCode.INVALID_ARG);
    await dom.setVcpus(before, { live: true });
    expect((await dom.getInfo()).nrVirtCpu).toBe(before);
  });

  it('setVcpus and blockResize check their numbers before calling libvirt', async () => {
    const dom = await conn.lookupDomainByName('test');
    await expect(dom.setVcpus(0)).rejects.toBeInstanceOf(RangeError);
    await expect(dom.blockResize('vda', -1)).rejects.toBeInstanceOf(RangeError);
    await expect(dom.blockResize('vda', 1.5)).rejects.toBeInstanceOf(RangeError);
  });

  it('blockResize and updateDevice reach libvirt and reject with its error', async () => {
    const dom = await conn.defineXML(testDomainXml(uniqueName('vlt-rt')));
    try {
      // The domain is not running: libvirt refuses both (the test driver has no block resize at all).
      await expect(dom.blockResize('vda', 1 << 20)).rejects.toBeInstanceOf(LibvirtError);
      await expect(
        dom.updateDevice("<interface type='network'><source network='default'/><link state='down'/></interface>", {
          live: true,
        }),
      ).rejects.toBeInstanceOf(LibvirtError);
    } finally {
      await dom.undefine();
    }
  });

  it('a freed handle rejects with INVALID_DOMAIN', async () => {
    const dom = await conn.lookupDomainByName('test');
    dom.free();
    await expect(dom.setVcpus(1)).rejects.toMatchObject({ code: ErrorCode.INVALID_DOMAIN });
  });
});

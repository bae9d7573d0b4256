// The I/O-error surface of the binding on libvirt's test driver: the `ioError` event's shape (delivered as the
// native callback hands it over; a real one is provoked in disk-errors.stack.test.ts) and getDiskErrors'
// answers for a running domain and for one that is not running.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { LibvirtError, connect } from './index.js';
import type { Connection, IoErrorEvent } from './index.js';
import { testDomainXml, uniqueName } from './test-helpers.js';

describe('I/O errors on test:///default', () => {
  let conn: Connection;
  beforeAll(async () => {
    conn = await connect('test:///default');
  });
  afterAll(async () => {
    await conn.close();
  });

  it('maps the native ioError payload to alias, path, action and reason', () => {
    const seen: IoErrorEvent[] = [];
    conn.on('ioError', (e) => seen.push(e));
    conn.dispatch('ioError', {
      name: 'vm',
      uuid: 'u',
      first: 1,
      second: 0,
      text: 'ua-disk0',
      number: 0,
      params: { srcPath: '/disk.img', reason: 'enospc' },
    });
    expect(seen).toEqual([
      {
        name: 'vm',
        uuid: 'u',
        alias: 'ua-disk0',
        srcPath: '/disk.img',
        action: 'pause',
        actionCode: 1,
        reason: 'enospc',
      },
    ]);
  });

  it('getDiskErrors: the named errors of a running domain; a typed error for one that is not running', async () => {
    // The test driver makes up one error per disk of a running domain (its `test` domain has one disk, vda).
    const running = await conn.lookupDomainByName('test');
    expect(await running.getDiskErrors()).toEqual([{ disk: 'vda', error: 'unspec', errorCode: 1 }]);
    const name = uniqueName('vlt-ioerr');
    const off = await conn.defineXML(testDomainXml(name));
    try {
      const err = await off.getDiskErrors().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(LibvirtError);
      expect((err as LibvirtError).codeName).toBe('OPERATION_INVALID');
    } finally {
      await off.undefine();
    }
  });
});

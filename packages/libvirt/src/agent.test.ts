// shapeGuestInfo: virDomainGetGuestInfo's flat typed parameters into nested objects (no daemon needed).
import { describe, expect, it } from 'vitest';

import { shapeGuestInfo } from './agent.js';

describe('shapeGuestInfo', () => {
  it('nests users, OS, timezone, hostname, filesystems with disks and interfaces with addresses', () => {
    const raw = {
      'user.count': 1,
      'user.0.name': 'root',
      'user.0.login-time': 1700000000123,
      'os.id': 'debian',
      'os.pretty-name': 'Debian 12',
      'os.version-id': '12',
      'timezone.name': 'UTC',
      'timezone.offset': 0,
      hostname: 'vm1',
      'fs.count': 1,
      'fs.0.mountpoint': '/',
      'fs.0.name': 'vda1',
      'fs.0.fstype': 'ext4',
      'fs.0.total-bytes': 1000,
      'fs.0.used-bytes': 10,
      'fs.0.disk.count': 1,
      'fs.0.disk.0.alias': 'vda',
      'fs.0.disk.0.serial': 'abc',
      'if.count': 1,
      'if.0.name': 'eth0',
      'if.0.hwaddr': '02:00:00:00:00:01',
      'if.0.addr.count': 2,
      'if.0.addr.0.type': 'ipv6',
      'if.0.addr.0.addr': 'fd00::2',
      'if.0.addr.0.prefix': 64,
      'if.0.addr.1.type': 'ipv4',
      'if.0.addr.1.addr': '10.0.2.2',
      'if.0.addr.1.prefix': 24,
    };
    const info = shapeGuestInfo(raw);
    expect(info.users).toEqual([{ name: 'root', loginTime: 1700000000123 }]);
    expect(info.os).toEqual({ id: 'debian', prettyName: 'Debian 12', versionId: '12' });
    expect(info.timezone).toEqual({ name: 'UTC', offset: 0 });
    expect(info.hostname).toBe('vm1');
    expect(info.filesystems).toEqual([
      {
        mountpoint: '/',
        name: 'vda1',
        fstype: 'ext4',
        totalBytes: 1000,
        usedBytes: 10,
        disks: [{ alias: 'vda', serial: 'abc' }],
      },
    ]);
    expect(info.interfaces?.[0]?.addrs.map((a) => a.addr)).toEqual(['fd00::2', '10.0.2.2']);
    expect(info.raw).toBe(raw);
  });

  it('leaves out what was not reported, and keeps an empty user list empty', () => {
    const info = shapeGuestInfo({ 'user.count': 0 });
    expect(info.users).toEqual([]);
    expect(info.os).toBeUndefined();
    expect(info.filesystems).toBeUndefined();
    expect(info.interfaces).toBeUndefined();
    expect(info.hostname).toBeUndefined();
  });
});

import { describe, expect, it } from 'vitest';
import { run, vmi } from '../testing/fixture.js';
import { filesystems } from './filesystems.js';

describe('filesystems', () => {
  it('virtiofs socket per share', () => {
    expect(
      run(filesystems, vmi({ devices: { filesystems: [{ name: 'data', virtiofs: {} }] } })).devices.filesystems,
    ).toEqual([{ socket: '/var/run/kubevirt/virtiofs-containers/data.sock', target: 'data' }]);
  });
});

import { describe, expect, it } from 'vitest';
import { run, vmi } from '../testing/fixture.js';
import { qemuCommandline } from './qemu-commandline.js';

describe('qemu commandline', () => {
  it('ignition data through fw_cfg from the ephemeral disk dir', () => {
    const v = vmi();
    v.metadata.annotations = { 'kubevirt.io/ignitiondata': '{"ignition":{}}' };
    expect(run(qemuCommandline, v).qemuCommandline).toEqual([
      '-fw_cfg',
      'name=opt/com.coreos/config,file=/var/run/kubevirt-ephemeral-disks/ignition-data/ns/vm/data.ign',
    ]);
    expect(run(qemuCommandline, vmi()).qemuCommandline).toEqual([]);
  });
});

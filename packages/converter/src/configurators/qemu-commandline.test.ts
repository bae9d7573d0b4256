import { describe, expect, it } from 'vitest';
import { run, vmi } from '../testing/fixture.js';
import { qemuCommandline } from './qemu-commandline.js';

const firmwareLog = [
  '-chardev',
  'file,id=firmwarelog,path=/var/run/kubevirt-private/QEMUSeaBiosDebugPipe',
  '-device',
  'isa-debugcon,iobase=0x402,chardev=firmwarelog',
];

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

  it('SeaBIOS debug console only above verbosity 5, on amd64', () => {
    const args = (ctx: Parameters<typeof run>[2]) => run(qemuCommandline, vmi(), ctx).qemuCommandline;
    expect(args({ launcherLogVerbosity: 6 })).toEqual(firmwareLog);
    expect(args({ launcherLogVerbosity: 6, architecture: 'amd64' })).toEqual(firmwareLog);
    expect(args({ launcherLogVerbosity: 5 })).toEqual([]);
    expect(args({})).toEqual([]);
    expect(args({ launcherLogVerbosity: 9, architecture: 'arm64' })).toEqual([]);
    expect(args({ launcherLogVerbosity: 9, architecture: 's390x' })).toEqual([]);
  });

  it('the firmware log lives in the context private dir, after the ignition arguments', () => {
    const v = vmi();
    v.metadata.annotations = { 'kubevirt.io/ignitiondata': 'ignition' };
    const out = run(qemuCommandline, v, {
      launcherLogVerbosity: 6,
      paths: { kubevirtPrivateDir: '/run-root/var/run/kubevirt-private' },
    }).qemuCommandline;
    expect(out.slice(0, 1)).toEqual(['-fw_cfg']);
    expect(out.slice(2)).toEqual([
      '-chardev',
      'file,id=firmwarelog,path=/run-root/var/run/kubevirt-private/QEMUSeaBiosDebugPipe',
      '-device',
      'isa-debugcon,iobase=0x402,chardev=firmwarelog',
    ]);
  });
});

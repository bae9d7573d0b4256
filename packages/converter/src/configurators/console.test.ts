import { describe, expect, it } from 'vitest';
import { run, vmi } from '../testing/fixture.js';
import { consoleSerial } from './console.js';

describe('console', () => {
  it('serial unix socket with log, pty console', () => {
    const d = run(consoleSerial, vmi(), { serialConsoleLog: true });
    expect(d.devices.serials).toEqual([
      {
        type: 'unix',
        port: 0,
        path: '/var/run/kubevirt-private/uid-1/virt-serial0',
        log: { file: '/var/run/kubevirt-private/uid-1/virt-serial0-log', append: 'on' },
      },
    ]);
    expect(d.devices.consoles).toEqual([{ type: 'pty', targetType: 'serial', port: 0 }]);
  });
  it("the VMI's logSerialConsole overrides the cluster setting in the context, both ways", () => {
    const on = run(consoleSerial, vmi({ devices: { logSerialConsole: true } }), { serialConsoleLog: false });
    expect(on.devices.serials[0]?.log).toEqual({
      file: '/var/run/kubevirt-private/uid-1/virt-serial0-log',
      append: 'on',
    });
    const off = run(consoleSerial, vmi({ devices: { logSerialConsole: false } }), { serialConsoleLog: true });
    expect(off.devices.serials[0]?.log).toBeUndefined();
  });
  it('nothing when autoattachSerialConsole is false', () => {
    expect(run(consoleSerial, vmi({ devices: { autoattachSerialConsole: false } })).devices.serials).toEqual([]);
  });
});

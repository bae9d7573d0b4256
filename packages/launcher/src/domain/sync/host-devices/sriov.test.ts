import { describe, expect, it } from 'vitest';
import { HostDeviceError } from './errors.js';
import { parseNetworkInfo, sriovDevices, sriovInterfaces } from './sriov.js';

const info = (entries: Array<[string, string]>) =>
  JSON.stringify({
    interfaces: entries.map(([network, pci]) => ({
      network,
      deviceInfo: { type: 'pci', version: '1.1.0', pci: { 'pci-address': pci } },
    })),
  });
const reported = (name: string) => ({ name, infoSource: 'domain, multus-status' });

function refusal(fn: () => unknown): HostDeviceError {
  try {
    fn();
  } catch (err) {
    if (err instanceof HostDeviceError) return err;
    throw err;
  }
  throw new Error('expected a HostDeviceError');
}

describe('SR-IOV VFs from the network-info file', () => {
  it('only SR-IOV interfaces Multus reported need a VF now', () => {
    const wanted = sriovInterfaces(
      [{ name: 'default', masquerade: {} } as never, { name: 'a', sriov: {} }, { name: 'b', sriov: {} }],
      [reported('a'), { name: 'b', infoSource: 'domain' }, reported('default')],
    );
    expect(wanted.map((w) => [w.iface.name, w.index])).toEqual([['a', 1]]);
  });

  it('each interface gets its network’s VF, with its guest PCI address and boot order', () => {
    const wanted = sriovInterfaces(
      [
        { name: 'a', sriov: {}, pciAddress: '0000:07:00.0', bootOrder: 2 },
        { name: 'b', sriov: {} },
      ],
      [reported('a'), reported('b')],
    );
    const devices = sriovDevices(
      wanted,
      info([
        ['b', '0000:3b:02.2'],
        ['a', '0000:3b:02.1'],
      ]),
    );
    expect(devices.map((d) => [d.type, d.alias, d.pciAddress, d.guestPciAddress, d.bootOrder])).toEqual([
      ['pci', 'sriov-a', '0000:3b:02.1', '0000:07:00.0', 2],
      ['pci', 'sriov-b', '0000:3b:02.2', '', 0],
    ]);
  });

  it('no interface, no file needed', () => {
    expect(sriovDevices([], undefined)).toEqual([]);
  });

  it('ignores entries without a PCI address and non-object junk', () => {
    const text = JSON.stringify({ interfaces: [null, 3, { network: 'x' }, { network: 'y', deviceInfo: { pci: {} } }] });
    expect(parseNetworkInfo(text).size).toBe(0);
  });

  it('refuses a missing or empty file, naming the path', () => {
    const wanted = sriovInterfaces([{ name: 'a', sriov: {} }], [reported('a')]);
    const err = refusal(() => sriovDevices(wanted, undefined, '/root/etc/podinfo/network-info'));
    expect([err.field, err.source]).toEqual(['spec.domain.devices.interfaces[0]', '/root/etc/podinfo/network-info']);
    expect(refusal(() => sriovDevices(wanted, '')).message).toContain('missing or empty');
  });

  it('refuses a file that is not JSON, or maps no network', () => {
    const wanted = sriovInterfaces([{ name: 'a', sriov: {} }], [reported('a')]);
    expect(refusal(() => sriovDevices(wanted, '{not json')).message).toContain('is not JSON');
    expect(refusal(() => sriovDevices(wanted, '{}')).message).toContain('maps no SR-IOV network');
  });

  it('refuses a network the file does not name', () => {
    const wanted = sriovInterfaces(
      [
        { name: 'a', sriov: {} },
        { name: 'b', sriov: {} },
      ],
      [reported('a'), reported('b')],
    );
    const err = refusal(() => sriovDevices(wanted, info([['a', '0000:3b:02.1']])));
    expect(err.field).toBe('spec.domain.devices.interfaces[1]');
    expect(err.message).toContain('"b"');
  });

  it.each([["0000:3b:02.1'/>"], ['../../../sys'], ['0000:3b:02']])('refuses a hostile VF address %j', (pci) => {
    const wanted = sriovInterfaces([{ name: 'a', sriov: {} }], [reported('a')]);
    const err = refusal(() => sriovDevices(wanted, info([['a', pci]])));
    expect([err.field, err.value]).toEqual(['spec.domain.devices.interfaces[0]', pci]);
  });

  it('refuses a malformed guest PCI address or boot order', () => {
    const file = info([['a', '0000:3b:02.1']]);
    const bad = (iface: Record<string, unknown>) =>
      refusal(() => sriovDevices(sriovInterfaces([{ name: 'a', sriov: {}, ...iface }], [reported('a')]), file));
    expect(bad({ pciAddress: 'zz' }).field).toBe('spec.domain.devices.interfaces[0].pciAddress');
    expect(bad({ bootOrder: 0 }).field).toBe('spec.domain.devices.interfaces[0].bootOrder');
    expect(bad({ bootOrder: '1' }).field).toBe('spec.domain.devices.interfaces[0].bootOrder');
  });
});

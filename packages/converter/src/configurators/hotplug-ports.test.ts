import { describe, expect, it } from 'vitest';
import { emptyDomain } from '../domain/types.js';
import { run, vmi } from '../testing/fixture.js';
import { hotplugPorts, pciDevicesUsed } from './hotplug-ports.js';

function withNics(n: number, memoryBytes: bigint) {
  const d = emptyDomain();
  d.memoryBytes = memoryBytes;
  d.os.type.machine = 'q35';
  for (let i = 0; i < n; i++)
    d.devices.interfaces.push({ type: 'ethernet', model: { type: 'virtio' }, alias: { name: `ua-n${i}` } });
  d.devices.controllers.push({ type: 'usb', index: 0, model: 'none' });
  return d;
}

describe('hotplug ports', () => {
  it('small VM with one NIC: used + 3 placeholders + extra = max(8 - used, 3) spare', () => {
    const v = vmi({ devices: { interfaces: [{ name: 'default', masquerade: {} }] } });
    const d = run(hotplugPorts, v, {}, withNics(1, 1n << 30n));
    expect(pciDevicesUsed(withNics(1, 1n << 30n))).toBe(2);
    const ports = d.devices.controllers.filter((c) => c.model === 'pcie-root-port');
    expect(ports).toHaveLength(2 + 3 + 3);
    expect(ports[0]?.index).toBe(1);
  });
  it('more than 2 GiB: (16, 6); never past index 31; off when the context says so or on s390x', () => {
    const v = vmi();
    const big = run(hotplugPorts, v, {}, withNics(0, 4n << 30n));
    expect(big.devices.controllers.filter((c) => c.model === 'pcie-root-port')).toHaveLength(1 + 15);
    const v40 = vmi({
      devices: { interfaces: Array.from({ length: 40 }, (_, i) => ({ name: `n${i}`, masquerade: {} })) },
    });
    const many = run(hotplugPorts, v40, {}, withNics(40, 1n << 30n));
    expect(Math.max(...many.devices.controllers.map((c) => c.index))).toBe(31);
    expect(run(hotplugPorts, v, { hotplugPorts: false }, withNics(1, 1n)).devices.controllers).toHaveLength(1);
    expect(run(hotplugPorts, v, { architecture: 's390x' }, withNics(1, 1n)).devices.controllers).toHaveLength(1);
  });
});

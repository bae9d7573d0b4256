import { describe, expect, it } from 'vitest';
import { run, vmi } from '../testing/fixture.js';
import type { Interface } from '../vmi/types.js';
import { interfaces } from './interfaces.js';
import { libvirtCompat } from './libvirt-compat.js';
import { memoryBacking } from './memory-backing.js';
import { ISTIO_INJECT_ANNOTATION, passtPortForwards } from './passt-ports.js';

function passtVmi(iface: Partial<Interface> = {}) {
  const v = vmi(
    { devices: { interfaces: [{ name: 'net', passtBinding: {}, ...iface }] } },
    { networks: [{ name: 'net', pod: {} }] },
  );
  v.status = { interfaces: [{ name: 'net', podInterfaceName: 'eth0' }] };
  return v;
}

describe('passt binding', () => {
  it('passtBinding: vhost-user NIC on the pod interface, passt back end, every port of both protocols', () => {
    const nic = run(interfaces, passtVmi()).devices.interfaces[0];
    expect(nic).toMatchObject({
      type: 'vhostuser',
      source: { dev: 'eth0' },
      backend: { type: 'passt', logFile: '/var/run/kubevirt/passt.log' },
      portForwards: [
        { proto: 'tcp', ranges: [] },
        { proto: 'udp', ranges: [] },
      ],
    });
  });
  it('listed ports: TCP by default, UDP when asked; Istio’s sidecar ports excluded', () => {
    const v = passtVmi();
    const iface: Interface = {
      name: 'net',
      passtBinding: {},
      ports: [{ port: 80 }, { port: 53, protocol: 'UDP' }, { port: 443, protocol: 'tcp' }],
    };
    expect(passtPortForwards(v, iface, 'f')).toEqual([
      { proto: 'tcp', ranges: [{ start: 80 }, { start: 443 }] },
      { proto: 'udp', ranges: [{ start: 53 }] },
    ]);
    v.metadata.annotations = { [ISTIO_INJECT_ANNOTATION]: 'True' };
    const tcp = passtPortForwards(v, iface, 'f')[0]!;
    expect(tcp.ranges.filter((r) => r.exclude).map((r) => r.start)).toContain(15000);
    expect(() => passtPortForwards(v, { ...iface, ports: [{ port: 1, protocol: 'SCTP' }] }, 'f')).toThrow(
      'f.ports[0].protocol',
    );
  });
  it('guest memory becomes a shared memfd', () => {
    expect(run(memoryBacking, passtVmi()).memoryBacking).toEqual({
      hugepages: undefined,
      sourceMemfd: true,
      accessShared: true,
    });
  });
  it('libvirt older than 11.1 cannot define it: refused naming the interface, not started without a NIC', () => {
    const v = passtVmi();
    const d = run(interfaces, v, { libvirtVersion: '9.0.0' });
    expect(() => run(libvirtCompat, v, { libvirtVersion: '9.0.0' }, d)).toThrow(/interface "net" needs libvirt 11\.1/);
    expect(() => run(libvirtCompat, v, { libvirtVersion: '11.1.0' }, d)).not.toThrow();
  });
});

import { describe, expect, it } from 'vitest';
import { LinkConflictError, linkSteps } from './links.js';
import type { IpLink } from './links.js';
import type { BridgePlan, TapPlan } from './gen/virtlauncher/netsetup/v1/netsetup.js';

const bridge: BridgePlan = {
  name: 'k6t-eth0',
  mac: '02:00:00:00:00:00',
  mtu: 1400,
  addresses: ['10.0.2.1/24', 'fd10:0:2::1/120'],
};
const tap: TapPlan = {
  name: 'tap0',
  master: 'k6t-eth0',
  mtu: 1400,
  ownerUid: 107,
  ownerGid: 107,
  queues: 0,
  multiqueue: false,
};

const appliedBridge: IpLink = {
  ifindex: 4,
  ifname: 'k6t-eth0',
  flags: ['UP'],
  mtu: 1400,
  address: '02:00:00:00:00:00',
  linkinfo: { info_kind: 'bridge' },
  addr_info: [
    { family: 'inet', local: '10.0.2.1', prefixlen: 24, scope: 'global' },
    { family: 'inet6', local: 'fd10:0:2::1', prefixlen: 120, scope: 'global' },
    { family: 'inet6', local: 'fe80::1', prefixlen: 64, scope: 'link' },
  ],
};
const appliedTap: IpLink = {
  ifindex: 5,
  ifname: 'tap0',
  flags: ['UP'],
  mtu: 1400,
  master: 'k6t-eth0',
  linkinfo: { info_kind: 'tun', info_data: { type: 'tap', user: 107, group: 107, multi_queue: false } },
};

describe('linkSteps', () => {
  it('creates everything in a fresh namespace', () => {
    const steps = linkSteps([], bridge, tap);
    expect(steps.created).toEqual(['k6t-eth0', 'tap0']);
    expect(steps.lines).toEqual([
      'link add k6t-eth0 type bridge',
      'link set k6t-eth0 address 02:00:00:00:00:00',
      'link set k6t-eth0 mtu 1400',
      'addr add 10.0.2.1/24 dev k6t-eth0',
      'addr add fd10:0:2::1/120 dev k6t-eth0 nodad',
      'tuntap add dev tap0 mode tap user 107 group 107',
      'link set tap0 mtu 1400',
      'link set tap0 master k6t-eth0',
      'link set tap0 up',
      'link set k6t-eth0 up',
    ]);
  });

  it('does nothing when the links already match', () => {
    expect(linkSteps([appliedBridge, appliedTap], bridge, tap)).toEqual({ lines: [], created: [] });
  });

  it('fixes only what differs; a tap of another owner is made anew', () => {
    const steps = linkSteps(
      [
        {
          ...appliedBridge,
          mtu: 1500,
          addr_info: [{ family: 'inet', local: '10.9.9.1', prefixlen: 24, scope: 'global' }],
        },
        { ...appliedTap, linkinfo: { info_kind: 'tun', info_data: { type: 'tap', user: 0, group: 0 } } },
      ],
      bridge,
      tap,
    );
    expect(steps.created).toEqual(['tap0']);
    expect(steps.lines).toEqual([
      'link set k6t-eth0 mtu 1400',
      'addr del 10.9.9.1/24 dev k6t-eth0',
      'addr add 10.0.2.1/24 dev k6t-eth0',
      'addr add fd10:0:2::1/120 dev k6t-eth0 nodad',
      'link del tap0',
      'tuntap add dev tap0 mode tap user 107 group 107',
      'link set tap0 mtu 1400',
      'link set tap0 master k6t-eth0',
      'link set tap0 up',
    ]);
  });

  it('refuses links of our names that are something else', () => {
    expect(() => linkSteps([{ ...appliedBridge, linkinfo: { info_kind: 'veth' } }], bridge, tap)).toThrow(
      LinkConflictError,
    );
    expect(() => linkSteps([{ ...appliedTap, linkinfo: { info_kind: 'dummy' } }], bridge, tap)).toThrow(
      LinkConflictError,
    );
  });
});

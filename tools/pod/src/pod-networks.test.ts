import { describe, expect, it } from 'vitest';
import { parseVmi } from '@virt-launcher/converter';
import { hashedPodIfaceName } from '@virt-launcher/netsetup';
import { bridgeInterfaces, NO_IPAM_ANNOTATION, podNetworkBridged, secondaryNetworkPlan } from './pod-networks.js';

const vmi = (bindingOfDefault: 'bridge' | 'masquerade', annotations: Record<string, string> = {}) =>
  parseVmi(
    JSON.stringify({
      apiVersion: 'kubevirt.io/v1',
      kind: 'VirtualMachineInstance',
      metadata: { name: 'v', namespace: 'default', annotations },
      spec: {
        domain: {
          memory: { guest: '128Mi' },
          devices: {
            interfaces: [
              { name: 'default', [bindingOfDefault]: {} },
              { name: 'blue', bridge: {} },
              { name: 'green', bridge: {} },
            ],
          },
        },
        networks: [
          { name: 'default', pod: {} },
          { name: 'blue', multus: { networkName: 'blue-net' } },
          { name: 'green', multus: { networkName: 'green-net' } },
        ],
      },
    }),
  );

describe('the pod interfaces virt-pod makes for a VMI', () => {
  it('one veth per Multus network, named as KubeVirt names the pod end, with an address unless marked no-IPAM', () => {
    expect(secondaryNetworkPlan(vmi('bridge', { [NO_IPAM_ANNOTATION]: 'green' }))).toEqual([
      {
        network: 'blue',
        podIface: hashedPodIfaceName('blue'),
        nodeIface: 'sec1',
        podIp: '198.18.1.10',
        nodeIp: '198.18.1.1',
      },
      { network: 'green', podIface: hashedPodIfaceName('green'), nodeIface: 'sec2', podIp: '', nodeIp: '' },
    ]);
  });

  it('bridge binding for every bridge NIC; masquerade only when the pod network is not bridged', () => {
    expect(bridgeInterfaces(vmi('bridge'))).toEqual(['default', 'blue', 'green']);
    expect(podNetworkBridged(vmi('bridge'))).toBe(true);
    expect(bridgeInterfaces(vmi('masquerade'))).toEqual(['blue', 'green']);
    expect(podNetworkBridged(vmi('masquerade'))).toBe(false);
  });
});

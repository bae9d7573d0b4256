import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { VirtualMachineInstance } from '../vmi/types.js';
import { defaultPodInterfaces } from './host.js';

describe('defaultPodInterfaces', () => {
  it("plugs the pod network's NIC into tap0 and a Multus network's into KubeVirt's hashed tap", () => {
    const vmi = {
      metadata: { name: 'v' },
      spec: {
        networks: [
          { name: 'default', pod: {} },
          { name: 'blue', multus: { networkName: 'blue-net' } },
          { name: 'sriov-net', multus: { networkName: 'sr' } },
        ],
        domain: {
          devices: {
            interfaces: [
              { name: 'default', bridge: {} },
              { name: 'blue', bridge: {} },
              { name: 'sriov-net', sriov: {} },
            ],
          },
        },
      },
    } as unknown as VirtualMachineInstance;
    const hash = createHash('sha256').update('blue').digest('hex').slice(0, 11);
    expect(defaultPodInterfaces(vmi)).toEqual({
      default: { tapName: 'tap0', mac: '', mtu: 0 },
      blue: { tapName: `tap${hash}`, mac: '', mtu: 0 },
    });
  });
});

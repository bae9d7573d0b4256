// SR-IOV VFs from DRA network claims, metadata files in a temporary base directory as the kubelet mounts them.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DRA_METADATA_API_VERSION } from './dra-metadata.js';
import { sriovFromClaims, type NetworkRequest } from './dra-sriov.js';
import { HostDeviceError } from './errors.js';
import type { InterfaceRequest } from './sriov.js';

const UUID = 'c2177883-f1bb-47f0-914d-32a22e3a8804';

let base = '';
beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'vlt-dra-sriov-'));
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

async function vfClaim(request: string, attributes: Record<string, string>): Promise<void> {
  const dir = join(base, 'resourceclaimtemplates/nics', request);
  await mkdir(dir, { recursive: true });
  const attrs = Object.fromEntries(Object.entries(attributes).map(([k, v]) => [k, { string: v }]));
  const metadata = {
    apiVersion: DRA_METADATA_API_VERSION,
    requests: [{ name: request, devices: [{ driver: 'sriov.example', attributes: attrs }] }],
  };
  await writeFile(join(dir, 'sriov.example-metadata.json'), JSON.stringify(metadata));
}

const resourceClaims = [{ name: 'nics', resourceClaimTemplateName: 'vf-template' }];

function read(interfaces: InterfaceRequest[], networks: NetworkRequest[]) {
  return sriovFromClaims({ interfaces, networks, resourceClaims }, base);
}

describe('SR-IOV VFs from DRA network claims', () => {
  it('an SR-IOV interface on a claimed network gets the claim’s PCI address, guest address and boot order', async () => {
    // A VF's metadata may also carry an mdevUUID; only the PCI address counts for a NIC.
    await vfClaim('vf1', { 'resource.kubernetes.io/pciBusID': '0000:3b:02.1', mdevUUID: UUID });
    const devices = await read(
      [
        { name: 'pod', masquerade: {} } as InterfaceRequest,
        { name: 'fast', sriov: {}, pciAddress: '0000:08:00.0', bootOrder: 2 },
        { name: 'multus', sriov: {} },
      ],
      [{ name: 'pod' }, { name: 'fast', resourceClaim: { claimName: 'nics', requestName: 'vf1' } }, { name: 'multus' }],
    );
    expect(devices).toEqual([
      expect.objectContaining({
        type: 'pci',
        alias: 'sriov-fast',
        pciAddress: '0000:3b:02.1',
        guestPciAddress: '0000:08:00.0',
        bootOrder: 2,
      }),
    ]);
  });

  it('refuses an incomplete network claim, a claim without a PCI address, and a bad guest address', async () => {
    await vfClaim('vf1', { mdevUUID: UUID });
    const fail = async (iface: InterfaceRequest, claim: NetworkRequest['resourceClaim']) => {
      const err: unknown = await read([iface], [{ name: 'n', resourceClaim: claim }]).catch((e: unknown) => e);
      if (!(err instanceof HostDeviceError)) throw new Error(`expected a HostDeviceError, got ${String(err)}`);
      return err;
    };
    const vf = { name: 'n', sriov: {} };
    expect((await fail(vf, { claimName: 'nics' })).field).toBe('spec.networks[0].resourceClaim.requestName');
    const noPci = await fail(vf, { claimName: 'nics', requestName: 'vf1' });
    expect([noPci.field, noPci.message]).toEqual([
      'spec.networks[0].resourceClaim',
      expect.stringContaining('no resource.kubernetes.io/pciBusID'),
    ]);
    await vfClaim('vf2', { 'resource.kubernetes.io/pciBusID': '0000:3b:02.2' });
    const guest = await fail({ ...vf, pciAddress: 'slot 8' }, { claimName: 'nics', requestName: 'vf2' });
    expect(guest.field).toBe('spec.domain.devices.interfaces[0].pciAddress');
  });
});

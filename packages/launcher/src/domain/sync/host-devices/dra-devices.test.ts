// DRA GPUs and host devices from claim metadata files in a temporary base directory laid out as the kubelet
// mounts them (resourceclaims/<claim>/<request>/<driver>-metadata.json, resourceclaimtemplates/...).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DeviceRequest } from './device-plugins.js';
import type { ResourceClaimRef } from './dra-claims.js';
import { devicesFromClaims } from './dra-devices.js';
import { DRA_METADATA_API_VERSION } from './dra-metadata.js';
import { HostDeviceError } from './errors.js';

const UUID = 'c2177883-f1bb-47f0-914d-32a22e3a8804';
const PCI_ATTR = 'resource.kubernetes.io/pciBusID';

type Attributes = Record<string, { string: string }>;

let base = '';
beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'vlt-dra-'));
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

/** Writes the metadata file of one claim request; `devices` are the attribute maps of its devices. */
async function claimFile(
  dir: 'resourceclaims' | 'resourceclaimtemplates',
  claim: string,
  request: string,
  devices: Attributes[],
  driver = 'gpu.example.com',
): Promise<void> {
  const at = join(base, dir, claim, request);
  await mkdir(at, { recursive: true });
  const metadata = {
    apiVersion: DRA_METADATA_API_VERSION,
    kind: 'DeviceMetadata',
    metadata: { name: claim },
    requests: [{ name: request, devices: devices.map((attributes, i) => ({ driver, name: `d${i}`, attributes })) }],
  };
  await writeFile(join(at, `${driver}-metadata.json`), `${JSON.stringify(metadata)}\n`);
}

const claims: ResourceClaimRef[] = [
  { name: 'gpus', resourceClaimName: 'gpu-claim' },
  { name: 'tmpl', resourceClaimTemplateName: 'gpu-template' },
];

function read(gpus: DeviceRequest[], hostDevices: DeviceRequest[] = [], resourceClaims = claims) {
  return devicesFromClaims({ gpus, hostDevices, resourceClaims }, base);
}

async function refusal(gpus: DeviceRequest[], hostDevices: DeviceRequest[] = []): Promise<HostDeviceError> {
  const err: unknown = await read(gpus, hostDevices).catch((e: unknown) => e);
  if (err instanceof HostDeviceError) return err;
  throw new Error(`expected a HostDeviceError, got ${String(err)}`);
}

describe('GPUs and host devices from DRA resource claims', () => {
  it('a passthrough GPU of a claim: PCI, managed by the launcher, no display', async () => {
    await claimFile('resourceclaims', 'gpu-claim', 'r1', [{ [PCI_ATTR]: { string: '0000:02:00.0' } }]);
    const { gpuHostDevices, genericHostDevices } = await read([{ name: 'g1', claimName: 'gpus', requestName: 'r1' }]);
    expect(genericHostDevices).toEqual([]);
    expect(gpuHostDevices).toEqual([
      expect.objectContaining({ type: 'pci', alias: 'dra-gpu-g1', pciAddress: '0000:02:00.0', display: false }),
    ]);
  });

  it('a vGPU without display options gets a display and ramfb; its UUID wins over the parent’s PCI address', async () => {
    await claimFile('resourceclaims', 'gpu-claim', 'v', [
      { mdevUUID: { string: UUID }, [PCI_ATTR]: { string: '0000:02:00.0' } },
    ]);
    const { gpuHostDevices } = await read([{ name: 'vgpu', claimName: 'gpus', requestName: 'v' }]);
    expect(gpuHostDevices).toEqual([
      expect.objectContaining({ type: 'mdev', alias: 'dra-gpu-vgpu', mdevUuid: UUID, display: true, ramfb: true }),
    ]);
  });

  it('display options: off, on without ramfb; the default goes only to the first vGPU', async () => {
    await claimFile('resourceclaims', 'gpu-claim', 'a', [{ mdevUUID: { string: UUID } }]);
    await claimFile('resourceclaims', 'gpu-claim', 'b', [{ mdevUUID: { string: UUID.replace('c2', 'd3') } }]);
    const off = await read([
      { name: 'a', claimName: 'gpus', requestName: 'a', virtualGPUOptions: { display: { enabled: false } } },
      { name: 'b', claimName: 'gpus', requestName: 'b', virtualGPUOptions: { display: { ramFB: { enabled: false } } } },
    ]);
    expect(off.gpuHostDevices.map((d) => [d.display, d.ramfb])).toEqual([
      [false, false],
      [true, false],
    ]);
    const defaults = await read([
      { name: 'a', claimName: 'gpus', requestName: 'a' },
      { name: 'b', claimName: 'gpus', requestName: 'b' },
    ]);
    expect(defaults.gpuHostDevices.map((d) => [d.display, d.ramfb])).toEqual([
      [true, true],
      [false, false],
    ]);
  });

  it('a template claim is found under resourceclaimtemplates/<claim name>; host devices get dra-hostdevice-', async () => {
    await claimFile(
      'resourceclaimtemplates',
      'tmpl',
      'nic',
      [{ [PCI_ATTR]: { string: '0000:3b:00.2' } }],
      'nic.example',
    );
    await claimFile('resourceclaims', 'gpu-claim', 'm', [{ mdevUUID: { string: UUID } }]);
    const { genericHostDevices, gpuHostDevices } = await read(
      [],
      [
        { name: 'vf', claimName: 'tmpl', requestName: 'nic' },
        { name: 'plugin', deviceName: 'intel.com/qat' },
        { name: 'med', claimName: 'gpus', requestName: 'm' },
      ],
    );
    expect(gpuHostDevices).toEqual([]);
    expect(genericHostDevices.map((d) => [d.type, d.alias, d.pciAddress || d.mdevUuid, d.display])).toEqual([
      ['pci', 'dra-hostdevice-vf', '0000:3b:00.2', false],
      ['mdev', 'dra-hostdevice-med', UUID, false],
    ]);
  });

  it('no DRA device, no file read', async () => {
    expect(await read([{ name: 'g', deviceName: 'nvidia.com/T4' }], [], [])).toEqual({
      genericHostDevices: [],
      gpuHostDevices: [],
    });
  });

  it.each([
    [{ name: 'g', claimName: 'gpus' }, 'spec.domain.devices.gpus[0].requestName', /incomplete claim request/],
    [{ name: 'g', requestName: 'r1' }, 'spec.domain.devices.gpus[0].claimName', /incomplete claim request/],
    [{ name: 'g', claimName: '', requestName: 'r1' }, 'spec.domain.devices.gpus[0].claimName', /incomplete/],
    [{ claimName: 'gpus', requestName: 'r1' }, 'spec.domain.devices.gpus[0].name', /needs a name/],
    [{ name: 'g', claimName: 'nope', requestName: 'r1' }, 'spec.domain.devices.gpus[0].claimName', /no resource claim/],
    [{ name: 'g', claimName: 'gpus', requestName: '../x' }, 'spec.domain.devices.gpus[0].requestName', /Kubernetes/],
    [{ name: 'g', claimName: 'gpus', requestName: 'r9' }, 'spec.domain.devices.gpus[0]', /left no device metadata/],
  ] as const)('refuses %j naming %s', async (gpu, field, message) => {
    await claimFile('resourceclaims', 'gpu-claim', 'r1', [{ [PCI_ATTR]: { string: '0000:02:00.0' } }]);
    const err = await refusal([gpu]);
    expect(err.field).toBe(field);
    expect(err.message).toMatch(message);
  });

  it.each([
    ['no device', [], /has 0 devices/],
    ['two devices', [{ mdevUUID: { string: UUID } }, { mdevUUID: { string: UUID } }], /has 2 devices/],
    ['neither attribute', [{ other: { string: 'x' } }], /neither mdevUUID nor/],
    ['a malformed PCI address', [{ [PCI_ATTR]: { string: '0000:02:00.0/../x' } }], /not a PCI address/],
    ['a malformed UUID', [{ mdevUUID: { string: '../../x' } }], /not a mediated device UUID/],
  ] as const)('refuses a claim request with %s', async (_what, devices, message) => {
    await claimFile('resourceclaims', 'gpu-claim', 'r1', [...devices]);
    const err = await refusal([], [{ name: 'h', claimName: 'gpus', requestName: 'r1' }]);
    expect(err.field).toBe('spec.domain.devices.hostDevices[0]');
    expect(err.message).toMatch(message);
  });

  it('refuses two drivers’ files for one request', async () => {
    const gpu = { name: 'g', claimName: 'gpus', requestName: 'r1' };
    await claimFile('resourceclaims', 'gpu-claim', 'r1', [{ [PCI_ATTR]: { string: '0000:02:00.0' } }], 'a.example');
    expect((await read([gpu])).gpuHostDevices).toHaveLength(1);
    await claimFile('resourceclaims', 'gpu-claim', 'r1', [{ [PCI_ATTR]: { string: '0000:02:00.1' } }], 'b.example');
    const two = await refusal([gpu]);
    expect(two.message).toMatch(/2 drivers/);
  });

  it('refuses two entries naming one claim request', async () => {
    await claimFile('resourceclaims', 'gpu-claim', 'r1', [{ [PCI_ATTR]: { string: '0000:02:00.0' } }]);
    const err = await refusal([
      { name: 'g', claimName: 'gpus', requestName: 'r1' },
      { name: 'h', claimName: 'gpus', requestName: 'r1' },
    ]);
    expect([err.field, err.value]).toEqual(['spec.domain.devices.gpus[1]', 'gpus/r1']);
  });

  it('refuses a request the file does not hold', async () => {
    await claimFile('resourceclaims', 'gpu-claim', 'r1', [{ [PCI_ATTR]: { string: '0000:02:00.0' } }]);
    await mkdir(join(base, 'resourceclaims/gpu-claim/r2'), { recursive: true });
    await writeFile(
      join(base, 'resourceclaims/gpu-claim/r2/x-metadata.json'),
      JSON.stringify({ apiVersion: DRA_METADATA_API_VERSION, requests: [{ name: 'r1', devices: [] }] }),
    );
    const err = await refusal([{ name: 'g', claimName: 'gpus', requestName: 'r2' }]);
    expect(err.message).toMatch(/no such request \(it has: r1\)/);
  });
});

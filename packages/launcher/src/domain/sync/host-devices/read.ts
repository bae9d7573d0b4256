// The impure half: reads the network-info file (only for a VMI that needs it) and hands the process environment
// to the pure `hostDeviceLists`. Multus may still be writing the annotation when the pod starts, so an empty file
// is re-read for up to a second before it counts as empty, as KubeVirt's launcher waits.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Env } from './address-pool.js';
import { DRA_METADATA_BASE } from './dra-claims.js';
import { devicesFromClaims } from './dra-devices.js';
import { sriovFromClaims } from './dra-sriov.js';
import { hostDeviceLists, hostDeviceSpec, needsNetworkInfo, type HostDeviceLists } from './from-environment.js';
import { withPciNumaNodes } from './numa-nodes.js';
import { NETWORK_INFO_PATH } from './sriov.js';

async function readUntilNotEmpty(path: string, attempts = 10, pauseMs = 100): Promise<string | undefined> {
  for (let i = 0; ; i++) {
    const text = await readFile(path, 'utf8').catch(() => undefined);
    if (text === undefined || text !== '' || i + 1 >= attempts) return text;
    await sleep(pauseMs);
  }
}

/**
 * `runRoot` is the launcher's --run-root (`/` in a pod), under which the downward-API file and the DRA drivers'
 * device metadata are looked for; DRA devices follow the device plugins' (and Multus's) in each list, as in KubeVirt. With
 * `pciNumaNodes` each PCI device also gets its host NUMA node from sysfs under `sysfsRoot` (numa-nodes.ts).
 */
export async function readHostDevices(
  vmiJson: Buffer,
  runRoot: string,
  env: Env = process.env,
  pciNumaNodes = false,
  sysfsRoot = '/sys',
): Promise<HostDeviceLists> {
  const spec = hostDeviceSpec(vmiJson);
  const path = join(runRoot, NETWORK_INFO_PATH);
  const networkInfo = needsNetworkInfo(spec) ? await readUntilNotEmpty(path) : undefined;
  const plugins = hostDeviceLists(spec, env, networkInfo, path);
  const draBase = join(runRoot, DRA_METADATA_BASE);
  const claims = await devicesFromClaims(spec, draBase);
  const lists = {
    genericHostDevices: [...plugins.genericHostDevices, ...claims.genericHostDevices],
    gpuHostDevices: [...plugins.gpuHostDevices, ...claims.gpuHostDevices],
    sriovDevices: [...plugins.sriovDevices, ...(await sriovFromClaims(spec, draBase))],
  };
  return pciNumaNodes ? withPciNumaNodes(lists, sysfsRoot) : lists;
}

// Network phase 2, DHCP half: for each masquerade NIC on the pod network, serve DHCP on its bridge
// k6t-<podIface>. Like KubeVirt's launcher, this side computes nothing: the node side (phase 1, our netsetup)
// worked the configuration out from the pod's interface and resolv.conf and cached it as
// vif-cache-<podIface>.pb (or .json) in the private directory; we read it and serve it. The
// dhcp_started-<podIface> marker prevents a second start.
import { access, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DhcpServerConfig } from '@virt-launcher/contracts';
import type * as Dhcp from '@virt-launcher/dhcp';
import { log } from '../log.js';
import type { LauncherPaths } from '../paths.js';
import type { VmiView } from '../vmi.js';
import { dhcpOptionsOf, withVmiDhcpOptions } from './dhcp-options.js';

export interface DhcpHandle {
  close(): Promise<void>;
}

type DhcpFace = typeof Dhcp;

/** The node side left no usable DHCP configuration for a pod interface that has a masquerade bridge. */
export class DhcpConfigCacheError extends Error {
  constructor(
    readonly podInterface: string,
    readonly path: string,
    reason: string,
  ) {
    super(`DHCP configuration for pod interface ${podInterface} (${path}): ${reason}`);
    this.name = 'DhcpConfigCacheError';
  }
}

/** Loaded only when a masquerade NIC needs a server; the literal specifier keeps the face type-checked. */
async function loadDhcp(): Promise<DhcpFace> {
  return import('@virt-launcher/dhcp');
}

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

const readOrUndefined = (path: string) => readFile(path).catch(() => undefined);

function parsed<T>(podIface: string, path: string, parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    throw new DhcpConfigCacheError(podIface, path, `cannot be decoded: ${(err as Error).message}`);
  }
}

/**
 * The cached configuration for `podIface`: the binary form first (what netsetup's callers write), then JSON.
 * A cache without a v4 or v6 part would start a server that answers nobody, so it is refused.
 */
export async function readCachedDhcpConfig(privateDir: string, podIface: string): Promise<DhcpServerConfig> {
  const base = join(privateDir, `vif-cache-${podIface}`);
  let path = `${base}.pb`;
  let config: DhcpServerConfig;
  const pb = await readOrUndefined(path);
  if (pb) {
    config = parsed(podIface, path, () => DhcpServerConfig.decode(pb));
  } else {
    path = `${base}.json`;
    const json = await readOrUndefined(path);
    if (!json) throw new DhcpConfigCacheError(podIface, `${base}.pb`, 'missing (neither .pb nor .json exists)');
    config = parsed(podIface, path, () => DhcpServerConfig.fromJSON(JSON.parse(json.toString('utf8'))));
  }
  if (!config.v4 && !config.v6) throw new DhcpConfigCacheError(podIface, path, 'has neither a v4 nor a v6 part');
  return config;
}

export class DhcpServers {
  private readonly servers: DhcpHandle[] = [];

  constructor(private readonly paths: LauncherPaths) {}

  /** Starts one server per masquerade NIC on the pod network (only the primary pod network: eth0). */
  async start(vmi: VmiView): Promise<void> {
    const podNetworks = new Set(vmi.networks.filter((n) => n.pod).map((n) => n.name));
    for (const iface of vmi.interfaces) {
      if (!iface.masquerade || !podNetworks.has(iface.name)) continue;
      const podIface = 'eth0';
      const marker = join(this.paths.privateDir, `dhcp_started-${podIface}`);
      if (await exists(marker)) continue;
      if (!(await exists(`/sys/class/net/k6t-${podIface}`))) {
        log.warning(`no bridge k6t-${podIface} in this network namespace: DHCP for ${iface.name} not started`);
        continue;
      }
      const config = withVmiDhcpOptions(
        await readCachedDhcpConfig(this.paths.privateDir, podIface),
        dhcpOptionsOf(iface),
      );
      const face = await loadDhcp();
      this.servers.push(await face.startDhcpServer(config));
      await writeFile(marker, '');
      log.info(`DHCP server started on k6t-${podIface}`, {
        interface: iface.name,
        families: [config.v4 && 'ipv4', config.v6 && 'ipv6'].filter((f) => !!f).join(','),
        routerAdvertisements: !!config.v6?.routerAdvert,
      });
    }
  }

  async stop(): Promise<void> {
    await Promise.all(this.servers.map((s) => s.close()));
  }
}

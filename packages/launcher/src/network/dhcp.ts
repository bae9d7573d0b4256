// Network phase 2, DHCP half: for each masquerade NIC on the pod network and each bridge NIC with IPAM, serve
// DHCP on its bridge k6t-<podIface> (dhcp-targets.ts). Like KubeVirt's launcher, this side computes nothing: the node side (phase 1, our netsetup)
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
import { dhcpTargets } from './dhcp-targets.js';

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
export async function readCachedDhcpConfig(
  privateDir: string,
  podIface: string,
  allowEmpty = false,
): Promise<DhcpServerConfig> {
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
  // A bridge NIC without IPAM is cached empty on purpose (no server); for masquerade it is a broken cache.
  if (!config.v4 && !config.v6 && !allowEmpty) {
    throw new DhcpConfigCacheError(podIface, path, 'has neither a v4 nor a v6 part');
  }
  return config;
}

export class DhcpServers {
  private readonly servers: DhcpHandle[] = [];

  constructor(private readonly paths: LauncherPaths) {}

  /**
   * Starts one server per masquerade NIC on the pod network and per bridge NIC whose node side cached an address
   * (pod network or secondary network); a bridge NIC cached without IPAM gets none, as in KubeVirt.
   */
  async start(vmi: VmiView): Promise<void> {
    for (const { iface: name, podIface, bridge, binding } of dhcpTargets(vmi)) {
      const iface = vmi.interfaces.find((i) => i.name === name)!;
      const marker = join(this.paths.privateDir, `dhcp_started-${podIface}`);
      if (await exists(marker)) continue;
      if (!(await exists(`/sys/class/net/${bridge}`))) {
        log.warning(`no bridge ${bridge} in this network namespace: DHCP for ${name} not started`);
        continue;
      }
      const cached = await readCachedDhcpConfig(this.paths.privateDir, podIface, binding === 'bridge');
      if (!cached.v4 && !cached.v6) {
        log.info(`no IPAM for ${name} (${binding} binding on ${bridge}): no DHCP server`);
        continue;
      }
      const config = withVmiDhcpOptions(cached, dhcpOptionsOf(iface));
      const face = await loadDhcp();
      this.servers.push(await face.startDhcpServer(config));
      await writeFile(marker, '');
      log.info(`DHCP server started on ${bridge}`, {
        interface: name,
        binding,
        families: [config.v4 && 'ipv4', config.v6 && 'ipv6'].filter((f) => !!f).join(','),
        routerAdvertisements: !!config.v6?.routerAdvert,
      });
    }
  }

  async stop(): Promise<void> {
    await Promise.all(this.servers.map((s) => s.close()));
  }
}

// Network phase 2, DHCP half: for each masquerade NIC on the pod network and each bridge NIC with IPAM, serve
// DHCP on its bridge k6t-<podIface> (dhcp-targets.ts), as KubeVirt's launcher does (pkg/network/dhcp
// configurator.go EnsureDHCPServerStarted). A masquerade NIC's configuration is worked out here from the pod
// (masquerade-dhcp.ts): a stock virt-handler writes nothing for it. A bridge NIC's comes from the file the node
// side's phase 1 wrote, vif-cache-<podIface>.json in the private directory. The dhcp_started-<podIface>
// marker prevents a second start.
import { access, open, readFile, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { DhcpServerConfig } from '@virt-launcher/contracts';
import type * as Dhcp from '@virt-launcher/dhcp';
import { log } from '../log.js';
import type { LauncherPaths } from '../paths.js';
import type { VmiView } from '../vmi.js';
import { dhcpOptionsOf, withVmiDhcpOptions } from './dhcp-options.js';
import { dhcpTargets, type DhcpTarget } from './dhcp-targets.js';
import { masqueradeDhcpConfig } from './masquerade-dhcp.js';
import { podLinkFacts } from './pod-link.js';
import { parseResolvConf, RESOLV_CONF_MAX_BYTES, type PodDns } from './resolv-conf.js';

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

/** The pod's files phase 2 reads; tests point them elsewhere. */
export interface PodNetworkSources {
  resolvConf: string;
  sysClassNet: string;
  hostname: () => string;
}

const POD_SOURCES: PodNetworkSources = {
  resolvConf: '/etc/resolv.conf',
  sysClassNet: '/sys/class/net',
  hostname,
};

/** The pod's resolv.conf, its first RESOLV_CONF_MAX_BYTES only; a pod without one gets KubeVirt's defaults. */
export async function readPodDns(path: string): Promise<PodDns> {
  let text = '';
  try {
    const file = await open(path, 'r');
    try {
      const buf = Buffer.alloc(RESOLV_CONF_MAX_BYTES);
      const { bytesRead } = await file.read(buf, 0, buf.length, 0);
      text = buf.subarray(0, bytesRead).toString('utf8');
    } finally {
      await file.close();
    }
  } catch (err) {
    // KubeVirt's StartDHCP fails without the file; a pod always has one, so say it and serve the defaults.
    log.warning(`cannot read ${path}: ${(err as Error).message}; the guest gets the default DNS settings`);
  }
  const dns = parseResolvConf(text);
  if (dns.skipped.length > 0) log.warning(`skipped ${dns.skipped.length} nameserver line(s) of ${path}`);
  log.info(`Found nameservers in ${path}: ${[...dns.ipv4Nameservers, ...dns.ipv6Nameservers].join(' ')}`);
  log.info(`Found search domains in ${path}: ${dns.searchDomains.length} (first: ${dns.searchDomains[0] ?? ''})`);
  return dns;
}

export class DhcpServers {
  private readonly servers: DhcpHandle[] = [];

  constructor(
    private readonly paths: LauncherPaths,
    private readonly sources: PodNetworkSources = POD_SOURCES,
  ) {}

  /** KubeVirt's MasqueradeConfigGenerator, from the pod's own links and files. */
  private async masqueradeConfig(vmi: VmiView, t: DhcpTarget, dns: PodDns): Promise<DhcpServerConfig> {
    const sysClassNet = this.sources.sysClassNet;
    const [pod, bridge] = await Promise.all([
      podLinkFacts(t.podIface, { sysClassNet }),
      podLinkFacts(t.bridge, { sysClassNet }),
    ]);
    const network = vmi.networks.find((n) => n.name === t.iface)?.pod ?? {};
    return masqueradeDhcpConfig({
      iface: t.iface,
      pod,
      bridge,
      network,
      dns,
      subdomain: vmi.subdomain ?? '',
      hostname: this.sources.hostname(),
    });
  }

  /**
   * Starts one server per masquerade NIC on the pod network and per bridge NIC whose node side cached an address
   * (pod network or secondary network); a bridge NIC cached without IPAM gets none, as in KubeVirt.
   */
  async start(vmi: VmiView): Promise<void> {
    let dns: PodDns | undefined;
    for (const target of dhcpTargets(vmi)) {
      const { iface: name, podIface, bridge, binding } = target;
      const iface = vmi.interfaces.find((i) => i.name === name)!;
      const marker = join(this.paths.privateDir, `dhcp_started-${podIface}`);
      if (await exists(marker)) continue;
      if (!(await exists(join(this.sources.sysClassNet, bridge)))) {
        log.warning(`no bridge ${bridge} in this network namespace: DHCP for ${name} not started`);
        continue;
      }
      dns ??= await readPodDns(this.sources.resolvConf);
      const cached =
        binding === 'masquerade'
          ? await this.masqueradeConfig(vmi, target, dns)
          : await readCachedDhcpConfig(this.paths.privateDir, podIface, true);
      if (!cached.v4 && !cached.v6) {
        log.info(`no IPAM for ${name} (${binding} binding on ${bridge}): no DHCP server`);
        continue;
      }
      const config = withVmiDhcpOptions(cached, dhcpOptionsOf(iface), name);
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

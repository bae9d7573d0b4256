// Network phase 2, DHCP half: for each masquerade NIC on the pod network and each bridge NIC with IPAM, serve
// DHCP on its bridge k6t-<podIface> (dhcp-targets.ts), as KubeVirt's launcher does (pkg/network/dhcp
// configurator.go EnsureDHCPServerStarted). A masquerade NIC's configuration is worked out here from the pod
// (masquerade-dhcp.ts): a stock virt-handler writes nothing for it. A bridge NIC's starts from the file the node
// side's phase 1 wrote, vif-cache-<podIface>.json in the private directory (bridge-dhcp.ts). Every NIC's
// configuration is worked out before any server starts, so a bad cache or VMI starts nothing. The
// dhcp_started-<podIface> marker prevents a second start.
import { access, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { DhcpServerConfig } from '@virt-launcher/contracts';
import type * as Dhcp from '@virt-launcher/dhcp';
import { bridgedNicName, fakeBridgeIp } from '@virt-launcher/shared';
import { log } from '../log.js';
import type { LauncherPaths } from '../paths.js';
import type { VmiView } from '../vmi.js';
import { bridgeDhcpConfig, readVifCache, vifCachePath } from './bridge-dhcp.js';
import { dhcpOptionsOf, withVmiDhcpOptions } from './dhcp-options.js';
import { dhcpTargets, type DhcpTarget } from './dhcp-targets.js';
import { masqueradeDhcpConfig } from './masquerade-dhcp.js';
import { podLinkFacts } from './pod-link.js';
import { readHead } from './read-head.js';
import { parseResolvConf, RESOLV_CONF_MAX_BYTES, type PodDns } from './resolv-conf.js';

export { DhcpConfigCacheError } from './bridge-dhcp.js';

export interface DhcpHandle {
  close(): Promise<void>;
}

type DhcpFace = typeof Dhcp;

/** Loaded only when a NIC needs a server; the literal specifier keeps the face type-checked. */
async function loadDhcp(): Promise<DhcpFace> {
  return import('@virt-launcher/dhcp');
}

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

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
    text = await readHead(path, RESOLV_CONF_MAX_BYTES);
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

interface PlannedServer {
  target: DhcpTarget;
  marker: string;
  config: DhcpServerConfig;
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

  /** KubeVirt's BridgeConfigGenerator: phase 1's cache plus what only the pod knows. Undefined: no IPAM. */
  private async bridgeConfig(vmi: VmiView, t: DhcpTarget, dns: PodDns): Promise<DhcpServerConfig | undefined> {
    const cache = await readVifCache(this.paths.privateDir, t.podIface);
    if (cache.ipamDisabled || !cache.ipv4) return undefined;
    const nic = bridgedNicName(t.podIface);
    return bridgeDhcpConfig({
      cache,
      path: vifCachePath(this.paths.privateDir, t.podIface),
      podIface: t.podIface,
      bridge: t.bridge,
      bridgedNic: await podLinkFacts(nic, { sysClassNet: this.sources.sysClassNet }),
      serverIp: fakeBridgeIp(vmi.interfaces.findIndex((i) => i.name === t.iface)),
      dns,
      subdomain: vmi.subdomain ?? '',
      hostname: this.sources.hostname(),
    });
  }

  /** Every server still to start, fully worked out; throws (starting nothing) on the first bad NIC. */
  private async plan(vmi: VmiView): Promise<PlannedServer[]> {
    const planned: PlannedServer[] = [];
    let dns: PodDns | undefined;
    for (const target of dhcpTargets(vmi)) {
      const { iface: name, podIface, bridge, binding } = target;
      const marker = join(this.paths.privateDir, `dhcp_started-${podIface}`);
      if (await exists(marker)) continue;
      if (!(await exists(join(this.sources.sysClassNet, bridge)))) {
        log.warning(`no bridge ${bridge} in this network namespace: DHCP for ${name} not started`);
        continue;
      }
      dns ??= await readPodDns(this.sources.resolvConf);
      const base =
        binding === 'masquerade'
          ? await this.masqueradeConfig(vmi, target, dns)
          : await this.bridgeConfig(vmi, target, dns);
      if (!base) {
        log.info(`no IPAM for ${name} (${binding} binding on ${bridge}): no DHCP server`);
        continue;
      }
      const iface = vmi.interfaces.find((i) => i.name === name)!;
      planned.push({ target, marker, config: withVmiDhcpOptions(base, dhcpOptionsOf(iface), name) });
    }
    return planned;
  }

  /**
   * Starts one server per masquerade NIC on the pod network and per bridge NIC whose node side cached an address
   * (pod network or secondary network); a bridge NIC cached without IPAM gets none, as in KubeVirt.
   */
  async start(vmi: VmiView): Promise<void> {
    const planned = await this.plan(vmi);
    if (planned.length === 0) return;
    const face = await loadDhcp();
    for (const { target, marker, config } of planned) {
      this.servers.push(await face.startDhcpServer(config));
      await writeFile(marker, '', { mode: 0o644 });
      log.info(`DHCP server started on ${target.bridge}`, {
        interface: target.iface,
        binding: target.binding,
        families: [config.v4 && 'ipv4', config.v6 && 'ipv6'].filter((f) => !!f).join(','),
        routerAdvertisements: !!config.v6?.routerAdvert,
      });
    }
  }

  async stop(): Promise<void> {
    await Promise.all(this.servers.map((s) => s.close()));
  }
}

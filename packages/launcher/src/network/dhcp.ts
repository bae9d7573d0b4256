// Network phase 2, DHCP half (docs/behaviour.md#dhcp): for each masquerade NIC on the pod network, serve DHCP on
// its bridge k6t-<podIface>. The configuration is the GuestDhcpConfig our netsetup left in
// vif-cache-<podIface>.pb (byte-compatible with dhcp's ServerConfig) or .json; without one the launcher
// builds KubeVirt's masquerade config itself. The dhcp_started-<podIface> marker prevents a second start.
import { access, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type * as Dhcp from '@virt-launcher/dhcp';
import type { ServerConfig } from '@virt-launcher/dhcp';
import { log } from '../log.js';
import type { LauncherPaths } from '../paths.js';
import type { VmiView } from '../vmi.js';

export interface DhcpHandle {
  close(): Promise<void>;
}

type DhcpFace = typeof Dhcp;

/** Loaded only when a masquerade NIC needs a server; the literal specifier keeps the face type-checked. */
async function loadDhcp(): Promise<DhcpFace> {
  return import('@virt-launcher/dhcp');
}

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

export interface PodFacts {
  mtu: number;
  dnsServers: string[];
  searchDomains: string[];
}

export function parseResolvConf(text: string): { dnsServers: string[]; searchDomains: string[] } {
  const dnsServers: string[] = [];
  const searchDomains: string[] = [];
  for (const line of text.split('\n')) {
    const [key, ...rest] = line.trim().split(/\s+/);
    if (key === 'nameserver' && rest[0] && /^\d+\.\d+\.\d+\.\d+$/.test(rest[0])) dnsServers.push(rest[0]);
    if (key === 'search') searchDomains.push(...rest);
  }
  return { dnsServers, searchDomains };
}

/** KubeVirt's masquerade DHCP: the guest gets 10.0.2.2/24 behind gateway 10.0.2.1, any client MAC. */
export function masqueradeConfig(podIface: string, vmi: VmiView, facts: PodFacts): Record<string, unknown> {
  return {
    v4: {
      interfaceName: `k6t-${podIface}`,
      serverIp: '10.0.2.1',
      clientMac: '',
      clientIpCidr: '10.0.2.2/24',
      router: '10.0.2.1',
      dnsServers: facts.dnsServers,
      searchDomains: vmi.subdomain
        ? [`${vmi.subdomain}.${vmi.namespace}.svc.cluster.local`, ...facts.searchDomains]
        : facts.searchDomains,
      domainName: '',
      mtu: facts.mtu,
      hostname: vmi.hostname ?? vmi.name,
      routes: [],
      leaseSeconds: 0,
      ntpServers: [],
      tftpServerName: '',
      bootfileName: '',
      privateOptions: [],
    },
    v6: undefined,
  };
}

export class DhcpServers {
  private readonly servers: DhcpHandle[] = [];

  constructor(private readonly paths: LauncherPaths) {}

  private async podFacts(podIface: string): Promise<PodFacts> {
    const mtuText = await readFile(`/sys/class/net/${podIface}/mtu`, 'utf8').catch(() => '');
    const resolv = await readFile(join(this.paths.runRoot, 'etc/resolv.conf'), 'utf8').catch(() => '');
    return { mtu: Number(mtuText.trim()) || 0, ...parseResolvConf(resolv) };
  }

  private async configFor(face: DhcpFace, podIface: string, vmi: VmiView): Promise<ServerConfig> {
    const base = join(this.paths.privateDir, `vif-cache-${podIface}`);
    const pb = await readFile(`${base}.pb`).catch(() => undefined);
    if (pb) return face.ServerConfig.decode(pb);
    const json = await readFile(`${base}.json`, 'utf8').catch(() => undefined);
    if (json) return face.ServerConfig.fromJSON(JSON.parse(json));
    return face.ServerConfig.fromJSON(masqueradeConfig(podIface, vmi, await this.podFacts(podIface)));
  }

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
      const face = await loadDhcp();
      const config = await this.configFor(face, podIface, vmi);
      this.servers.push(await face.startDhcpServer(config));
      await writeFile(marker, '');
      log.info(`DHCP server started on k6t-${podIface}`, { interface: iface.name });
    }
  }

  async stop(): Promise<void> {
    await Promise.all(this.servers.map((s) => s.close()));
  }
}

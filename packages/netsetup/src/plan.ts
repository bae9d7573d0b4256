// planMasquerade: pure computation of everything the masquerade binding needs in the pod namespace.
import { DEFAULT_VM_CIDR, hostAt, isGlobalUnicast, parseVmCidr } from './cidr.js';
import type { Family } from './cidr.js';
import { guestDhcpConfig } from './dhcp-config.js';
import { InvalidRequestError } from './errors.js';
import { BRIDGE_MAC, NFT_TABLE, bridgeNameFor, checkIfname, tapNameFor } from './names.js';
import { natRules, renderTable } from './nft-rules.js';
import type { NftFamily } from './nft-rules.js';
import { validatePorts } from './ports.js';
import type {
  GuestAddressing,
  MasqueradePlan,
  MasqueradeRequest,
  NftTablePlan,
  PodInterfaceFacts,
  Sysctl,
} from './gen/virtlauncher/netsetup/v1/netsetup.js';

/** KubeVirt caps NetworkQueuesCapacity at 256. */
export const MAX_QUEUES = 256;

function addressing(cidrText: string, family: Family): GuestAddressing {
  const cidr = parseVmCidr(cidrText || DEFAULT_VM_CIDR[family], family);
  return { gatewayIp: hostAt(cidr, 1), guestIp: hostAt(cidr, 2), prefixLength: cidr.prefix };
}

function hasGlobal(pod: PodInterfaceFacts, family: Family): boolean {
  const list = family === 4 ? pod.ipv4Addresses : pod.ipv6Addresses;
  return list.some((a) => isGlobalUnicast(a.address));
}

function checkedPod(pod: PodInterfaceFacts | undefined): PodInterfaceFacts {
  if (!pod || !pod.name) throw new InvalidRequestError('the request has no pod interface facts');
  checkIfname(pod.name, 'pod interface');
  if (pod.mtu < 68 || pod.mtu > 65535) throw new InvalidRequestError(`pod interface MTU ${pod.mtu} is out of range`);
  return pod;
}

function sysctlsFor(bridge: string, v4: boolean, v6: boolean): Sysctl[] {
  const out: Sysctl[] = [];
  if (v4) {
    out.push({ path: 'net/ipv4/ip_forward', value: '1' });
    // Lets the output-chain DNAT of 127.0.0.1 towards the guest route through the bridge.
    out.push({ path: `net/ipv4/conf/${bridge}/route_localnet`, value: '1' });
  }
  if (v6) out.push({ path: 'net/ipv6/conf/all/forwarding', value: '1' });
  return out;
}

export function planMasquerade(request: MasqueradeRequest): MasqueradePlan {
  const pod = checkedPod(request.pod);
  const ports = validatePorts(request.ports);
  if (request.queues > MAX_QUEUES) throw new InvalidRequestError(`queues ${request.queues} exceeds ${MAX_QUEUES}`);
  const bridge = checkIfname(bridgeNameFor(pod.name), 'bridge');
  const tap = checkIfname(request.tapName || tapNameFor(pod.name), 'tap');

  const v4 = hasGlobal(pod, 4);
  if (request.ipv6 && !hasGlobal(pod, 6)) {
    throw new InvalidRequestError(`IPv6 requested but "${pod.name}" has no global IPv6 address`);
  }
  const v6 = request.ipv6;
  if (!v4 && !v6) throw new InvalidRequestError(`"${pod.name}" has no global IPv4 address (and IPv6 is off)`);
  const ipv4 = v4 ? addressing(request.vmNetworkCidr, 4) : undefined;
  const ipv6 = v6 ? addressing(request.vmIpv6NetworkCidr, 6) : undefined;

  const nftTables: NftTablePlan[] = [];
  const families: Array<[NftFamily, GuestAddressing | undefined]> = [
    ['ip', ipv4],
    ['ip6', ipv6],
  ];
  for (const [family, addr] of families) {
    if (!addr) continue;
    const rules = natRules({
      family,
      table: NFT_TABLE,
      podIface: pod.name,
      bridge,
      guestIp: addr.guestIp,
      gatewayIp: addr.gatewayIp,
      ports,
      legacyMigrationPorts: request.legacyMigrationPorts,
      istio: request.istio,
      podIpv4: pod.ipv4Addresses.find((a) => isGlobalUnicast(a.address))?.address ?? '',
    });
    nftTables.push({ family, name: NFT_TABLE, text: renderTable(family, NFT_TABLE, rules) });
  }

  return {
    podInterface: pod.name,
    bridge: {
      name: bridge,
      mac: BRIDGE_MAC,
      mtu: pod.mtu,
      addresses: [ipv4, ipv6].filter((a) => a !== undefined).map((a) => `${a.gatewayIp}/${a.prefixLength}`),
    },
    tap: {
      name: tap,
      master: bridge,
      mtu: pod.mtu,
      ownerUid: request.tapUid,
      ownerGid: request.tapGid,
      queues: request.queues,
      multiqueue: request.queues > 1,
    },
    sysctls: sysctlsFor(bridge, v4, v6),
    nftTables,
    nftRuleset: nftTables.map((t) => t.text).join(''),
    ipv4,
    ipv6,
    dhcp: guestDhcpConfig({
      pod,
      bridge,
      bridgeMac: BRIDGE_MAC,
      ipv4,
      ipv6,
      subdomain: request.subdomain,
      options: request.dhcpOptions,
    }),
  };
}

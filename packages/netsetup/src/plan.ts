// planMasquerade: pure computation of everything the masquerade binding needs in the pod namespace: what
// KubeVirt's node side does in phase 1 (bridge with the gateway addresses, tap, nftables NAT, sysctls). The
// guest's DHCP configuration is not part of it: the launcher computes that itself in phase 2, as KubeVirt's does.
import { DEFAULT_VM_CIDR, VmCidrError, hostAt, isGlobalUnicast, parseVmCidr } from '@virt-launcher/shared';
import type { Family } from '@virt-launcher/shared';
import { InvalidCidrError, InvalidRequestError } from './errors.js';
import { BRIDGE_MAC, NFT_TABLE, bridgeNameFor, checkIfname, tapNameFor } from './names.js';
import { natRules, renderTable } from './nft-rules.js';
import type { NftFamily } from './nft-rules.js';
import { validatePorts } from './ports.js';
import type {
  BridgePlan,
  GuestAddressing,
  MasqueradePlan,
  MasqueradeRequest,
  NftTablePlan,
  PodInterfaceFacts,
  Sysctl,
  TapPlan,
} from './gen/virtlauncher/netsetup/v1/netsetup.js';

/** KubeVirt caps NetworkQueuesCapacity at 256. */
export const MAX_QUEUES = 256;

function addressing(cidrText: string, family: Family): GuestAddressing {
  let cidr;
  try {
    cidr = parseVmCidr(cidrText || DEFAULT_VM_CIDR[family], family);
  } catch (err) {
    if (err instanceof VmCidrError) throw new InvalidCidrError(err.cidr, err.reason);
    throw err;
  }
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

/** The request's names and limits, checked before anything is planned: pod facts, ports, queues, link names. */
function checkedRequest(request: MasqueradeRequest) {
  const pod = checkedPod(request.pod);
  const ports = validatePorts(request.ports);
  if (request.queues > MAX_QUEUES) throw new InvalidRequestError(`queues ${request.queues} exceeds ${MAX_QUEUES}`);
  const bridge = checkIfname(bridgeNameFor(pod.name), 'bridge');
  const tap = checkIfname(request.tapName || tapNameFor(pod.name), 'tap');
  return { pod, ports, bridge, tap };
}

export interface GuestFamilies {
  ipv4: GuestAddressing | undefined;
  ipv6: GuestAddressing | undefined;
}

/**
 * IPv4 whenever the pod has a global IPv4 address; IPv6 only when asked for, and then the pod must have a global
 * IPv6 address. At least one family must remain.
 */
export function guestFamilies(
  pod: PodInterfaceFacts,
  request: Pick<MasqueradeRequest, 'ipv6' | 'vmNetworkCidr' | 'vmIpv6NetworkCidr'>,
): GuestFamilies {
  const v4 = hasGlobal(pod, 4);
  if (request.ipv6 && !hasGlobal(pod, 6)) {
    throw new InvalidRequestError(`IPv6 requested but "${pod.name}" has no global IPv6 address`);
  }
  const v6 = request.ipv6;
  if (!v4 && !v6) throw new InvalidRequestError(`"${pod.name}" has no global IPv4 address (and IPv6 is off)`);
  return {
    ipv4: v4 ? addressing(request.vmNetworkCidr, 4) : undefined,
    ipv6: v6 ? addressing(request.vmIpv6NetworkCidr, 6) : undefined,
  };
}

/** One NAT table per guest family, in the order ip, ip6. */
function nftTablesFor(
  request: MasqueradeRequest,
  checked: ReturnType<typeof checkedRequest>,
  families: GuestFamilies,
): NftTablePlan[] {
  const { pod, ports, bridge } = checked;
  const nftTables: NftTablePlan[] = [];
  const byFamily: Array<[NftFamily, GuestAddressing | undefined]> = [
    ['ip', families.ipv4],
    ['ip6', families.ipv6],
  ];
  for (const [family, addr] of byFamily) {
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
  return nftTables;
}

/** The bridge carries the pod's MTU, its fixed MAC and the gateway address of each guest family. */
function bridgePlan(bridge: string, pod: PodInterfaceFacts, { ipv4, ipv6 }: GuestFamilies): BridgePlan {
  return {
    name: bridge,
    mac: BRIDGE_MAC,
    mtu: pod.mtu,
    addresses: [ipv4, ipv6].filter((a) => a !== undefined).map((a) => `${a.gatewayIp}/${a.prefixLength}`),
  };
}

/** The tap is enslaved to the bridge, owned by the launcher's user, multi-queue when more than one queue. */
function tapPlan(request: MasqueradeRequest, tap: string, bridge: string, pod: PodInterfaceFacts): TapPlan {
  return {
    name: tap,
    master: bridge,
    mtu: pod.mtu,
    ownerUid: request.tapUid,
    ownerGid: request.tapGid,
    queues: request.queues,
    multiqueue: request.queues > 1,
  };
}

export function planMasquerade(request: MasqueradeRequest): MasqueradePlan {
  const checked = checkedRequest(request);
  const { pod, bridge, tap } = checked;
  const families = guestFamilies(pod, request);
  const { ipv4, ipv6 } = families;
  const nftTables = nftTablesFor(request, checked, families);
  return {
    podInterface: pod.name,
    bridge: bridgePlan(bridge, pod, families),
    tap: tapPlan(request, tap, bridge, pod),
    sysctls: sysctlsFor(bridge, ipv4 !== undefined, ipv6 !== undefined),
    nftTables,
    nftRuleset: nftTables.map((t) => t.text).join(''),
    ipv4,
    ipv6,
  };
}

// planBridge: pure computation of the bridge binding for one pod interface (docs/bridge.md). The pod interface
// becomes a port of the bridge k6t-<name> under a new name and without its addresses, the tap joins the bridge,
// and the guest gets the pod's old IPv4 address (and MAC) by DHCP.
import { isGlobalUnicast } from '@virt-launcher/shared';
import { InvalidRequestError } from '../errors.js';
import { MAX_QUEUES } from '../plan.js';
import { bridgeNameFor, checkIfname, tapNameFor } from '../names.js';
import { bridgeVifCache } from './dhcp.js';
import { bridgePortMacFor, bridgedNicNameFor, checkMac, fakeBridgeIpFor, PRIMARY_POD_IFACE } from './names.js';
import type { BridgeBindingPlan, BridgeBindingRequest } from './types.js';

function checkedRequest(request: BridgeBindingRequest) {
  const pod = request.pod;
  if (!pod?.name) throw new InvalidRequestError('the request has no pod interface facts');
  checkIfname(pod.name, 'pod interface');
  if (pod.mtu < 68 || pod.mtu > 65535) throw new InvalidRequestError(`pod interface MTU ${pod.mtu} is out of range`);
  if (request.queues > MAX_QUEUES) throw new InvalidRequestError(`queues ${request.queues} exceeds ${MAX_QUEUES}`);
  if (request.secondary === (pod.name === PRIMARY_POD_IFACE)) {
    throw new InvalidRequestError(
      `pod interface "${pod.name}" does not name a ${request.secondary ? 'secondary' : 'pod'} network's interface`,
    );
  }
  const podMac = checkMac(pod.mac, 'pod interface MAC');
  // KubeVirt's order: the spec's MAC, the one the VMI's status reports, the pod interface's.
  const guestMac = request.macAddress
    ? checkMac(request.macAddress, 'interface macAddress')
    : request.statusMac
      ? checkMac(request.statusMac, 'status interface MAC')
      : podMac;
  return {
    pod,
    podMac,
    guestMac,
    bridge: checkIfname(bridgeNameFor(pod.name), 'bridge'),
    nic: checkIfname(bridgedNicNameFor(pod.name), 'bridge port'),
    tap: checkIfname(tapNameFor(pod.name), 'tap'),
    serverIp: fakeBridgeIpFor(request.interfaceIndex),
  };
}

export function planBridge(request: BridgeBindingRequest): BridgeBindingPlan {
  const { pod, podMac, guestMac, bridge, nic, tap, serverIp } = checkedRequest(request);
  const hasIpv4 = pod.ipv4Addresses.some((a) => isGlobalUnicast(a.address));
  const nicMac = bridgePortMacFor(pod.name, podMac);
  return {
    podInterface: pod.name,
    nic,
    nicMac,
    guestMac,
    podMac,
    mtu: pod.mtu,
    bridge: { name: bridge, mac: nicMac, mtu: pod.mtu, addresses: hasIpv4 ? [`${serverIp}/32`] : [] },
    tap: {
      name: tap,
      master: bridge,
      mtu: pod.mtu,
      ownerUid: request.tapUid,
      ownerGid: request.tapGid,
      queues: request.queues,
      multiqueue: request.queues > 1,
    },
    podAddresses: [...pod.ipv4Addresses, ...pod.ipv6Addresses]
      .filter((a) => isGlobalUnicast(a.address))
      .map((a) => `${a.address}/${a.prefixLength}`),
    podRoutes: pod.routes.map((r) => ({ destination: r.destination, gateway: r.gateway })),
    arpIgnore: hasIpv4,
    dhcpCache: bridgeVifCache(pod, guestMac),
  };
}

// The face of @virt-launcher/netsetup: everything other packages may use is exported here.
export { planMasquerade, MAX_QUEUES } from './plan.js';
export { masqueradeRequestFor, istioInjected, ISTIO_INJECT_ANNOTATION } from './vmi-request.js';
export type { VmiLike, VmiInterfaceLike, VmiNetworkLike, NodeSideChoices } from './vmi-request.js';
export { applyPlan } from './apply.js';
export type { ApplyReport } from './apply.js';
export { teardown } from './teardown.js';
export type { TeardownReport } from './teardown.js';
export { discoverPodInterface } from './discover.js';
export { parsePort, parsePorts } from './ports.js';
export { bridgeNameFor, tapNameFor, BRIDGE_MAC, NFT_TABLE } from './names.js';
export {
  NetsetupError,
  BadInputError,
  NamespaceNotFoundError,
  InterfaceNotFoundError,
  InvalidPortError,
  InvalidCidrError,
  InvalidRequestError,
  TableConflictError,
  CommandError,
  ApplyError,
  NetnsLockError,
} from './errors.js';
export { lockNetns, withNetnsLock, netnsLockPath } from './netns-lock.js';
export type { NetnsLockOptions } from './netns-lock.js';
export { LinkConflictError } from './links.js';
export {
  PodInterfaceFacts,
  MasqueradeRequest,
  MasqueradePlan,
  PortSpec,
  BridgePlan,
  TapPlan,
  Sysctl,
  NftTablePlan,
  GuestAddressing,
} from './gen/virtlauncher/netsetup/v1/netsetup.js';
// The bridge binding (docs/bridge.md).
export { planBridge } from './bridge/plan.js';
export { applyBridgePlan, teardownBridge, bridgeBindingInPlace, bridgeBindingApplied } from './bridge/apply.js';
export type { BridgeApplyReport, BridgeTeardownReport } from './bridge/apply.js';
export { bridgeRequestFor, podInterfaceNameFor } from './bridge/vmi-request.js';
export type { BridgeVmiLike } from './bridge/vmi-request.js';
export { writeBridgeDhcpCache } from './bridge/cli.js';
export { hashedPodIfaceName, bridgedNicNameFor, fakeBridgeIpFor } from './bridge/names.js';
export type { BridgeBindingRequest, BridgeBindingPlan } from './bridge/types.js';

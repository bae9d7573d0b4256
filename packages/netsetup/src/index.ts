// The face of @virt-launcher/netsetup: everything other packages may use is exported here.
export { planMasquerade, MAX_QUEUES } from './plan.js';
export { applyPlan } from './apply.js';
export type { ApplyReport } from './apply.js';
export { teardown } from './teardown.js';
export type { TeardownReport } from './teardown.js';
export { discoverPodInterface } from './discover.js';
export type { DiscoverOptions } from './discover.js';
export { parsePort, parsePorts } from './ports.js';
export { bridgeNameFor, tapNameFor, BRIDGE_MAC, NFT_TABLE } from './names.js';
export { LEASE_SECONDS } from './dhcp-config.js';
export {
  NetsetupError,
  BadInputError,
  NamespaceNotFoundError,
  InterfaceNotFoundError,
  InvalidPortError,
  ResolvConfError,
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
  DhcpOptions,
  BridgePlan,
  TapPlan,
  Sysctl,
  NftTablePlan,
  GuestAddressing,
  GuestDhcpConfig,
  GuestDhcpV4Config,
  GuestDhcpV6Config,
  GuestRoute,
  GuestPrivateOption,
} from './gen/virtlauncher/netsetup/v1/netsetup.js';

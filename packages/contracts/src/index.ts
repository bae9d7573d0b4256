// The face of @virt-launcher/contracts: messages shared by role packages, generated from proto/ (no logic here).
// A role may import this package; roles never import each other, so a message two roles exchange lives here.
// Other packages' generated code imports these names as they are (ts-proto's M option), so keep them unaliased.
export {
  DhcpServerConfig,
  DhcpV4Config,
  DhcpV6Config,
  DhcpRoute,
  DhcpPrivateOption,
  RouterAdvertConfig,
} from './gen/virtlauncher/dhcp/v1/dhcp.js';

/**
 * KubeVirt's lease for DHCPv4 (option 51) and DHCPv6 (preferred and valid lifetime): 999 days. The value a
 * `lease_seconds` of 0 stands for, and the value netsetup writes.
 */
export const DEFAULT_LEASE_SECONDS = 86_313_600;

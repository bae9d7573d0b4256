// The face of @virt-launcher/launcher: the generated cmd/info/notify contracts (so tools build clients from
// the same protos) and a ready-made cmd client with KubeVirt's version handshake.
export * as cmdV1 from './gen/kubevirt/cmd/v1/cmd.js';
export * as cmdInfo from './gen/kubevirt/cmd/info/info.js';
export * as notifyV1 from './gen/kubevirt/notify/v1/notify.js';
export * as notifyInfo from './gen/kubevirt/notify/info/info.js';
export { CmdClient, CmdService } from './gen/kubevirt/cmd/v1/cmd.js';
export { CmdInfoClient, CmdInfoService } from './gen/kubevirt/cmd/info/info.js';
export { NotifyClient, NotifyService } from './gen/kubevirt/notify/v1/notify.js';
export { NotifyInfoClient, NotifyInfoService } from './gen/kubevirt/notify/info/info.js';
export {
  connectLauncher,
  negotiateVersion,
  VersionMismatchError,
  LauncherConnectError,
  clientCmdVersions,
  DIAL_TIMEOUT_MS,
  DEFAULT_CALL_TIMEOUT_MS,
} from './cmd-client.js';
export type { LauncherClient, ConnectOptions } from './cmd-client.js';
export { serveNotify, serverNotifyVersions } from './notify-server.js';
export type { NotifyEndpoint, NotifyHandlers } from './notify-server.js';
export type { CmdMethod, RequestOf, ResponseOf } from './cmd-server/rpc-table.js';
export { parseFlags } from './flags.js';
export type { LauncherFlags } from './flags.js';
export { resolvePaths } from './paths.js';
export type { LauncherPaths } from './paths.js';
// What the launcher starts a monolithic libvirtd with (a driver directory holding only the QEMU module): exported
// so a benchmark can start its peer libvirtd the same way.
export { qemuOnlyDriverEnv } from './daemons/driver-dir.js';
export type { DriverDirChoice } from './daemons/driver-dir.js';
// A pod's PID namespace ends every process of the pod, the QEMU capability probes its daemon daemonized included; a
// harness that SIGKILLs a launcher in a private root does the same with these (namespaces read before the kill, swept
// after).
export { foreignMountNamespaces, killAllIn } from './daemons/probe-orphans.js';
// Network phase 2's DHCP configuration of a masquerade or bridge NIC, worked out as the launcher does it: exported
// for tests that compose netsetup and the DHCP server without a launcher process.
export { masqueradeDhcpConfig } from './network/masquerade-dhcp.js';
export type { MasqueradeDhcpInputs } from './network/masquerade-dhcp.js';
export { bridgeDhcpConfig } from './network/bridge-dhcp.js';
export type { BridgeDhcpInputs } from './network/bridge-dhcp.js';
export type { PodLinkFacts } from './network/pod-link.js';
export { withVmiDhcpOptions } from './network/dhcp-options.js';
export { parseResolvConf } from './network/resolv-conf.js';

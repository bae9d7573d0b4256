// The face of @virt-launcher/launcherctl: the CLI as a function (for the pod runner and scripts) and the
// pieces an operator tool may reuse.
export { runLauncherctl, parseInvocation, USAGE } from './run.js';
export type { Io } from './run.js';
export { LauncherConnection, checkSocket, DIAL_TIMEOUT_MS, INFO_TIMEOUT_MS } from './connection.js';
export { interpretCallError, interpretResponse, goCodeName } from './handle-error.js';
export { parseVmiText, loadVmiFile, syncOptions, interfaceDomainAttachment, derivedUid } from './vmi-file.js';
export type { LoadedVmi } from './vmi-file.js';
export { UsageError, SocketError, HandshakeError, CommandError } from './errors.js';

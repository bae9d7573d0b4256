// The face of @virt-launcher/pod-programs: the programs virt-controller runs from the launcher image besides
// the launcher itself, as functions (for tests and tools) and as files (for the image build).
import { fileURLToPath } from 'node:url';

export { runTail } from './tail.js';
export { runProbe, DEFAULT_LAUNCHER_SOCKET } from './probe.js';
export { runFreezer, FREEZER_SOCKET } from './freezer.js';
export { LogFollower } from './log-follower.js';
export type { FollowerOptions } from './log-follower.js';
export { FlagError } from './flags.js';
export { LauncherRpcError, LauncherConnectError } from './launcher-rpc.js';
export type { ProgramIO } from './program-io.js';

/** The Node programs' entry files (built) and the static container-disk executable, by image name. */
export const programFiles = {
  'virt-tail': fileURLToPath(new URL('./cli/virt-tail.js', import.meta.url)),
  'virt-probe': fileURLToPath(new URL('./cli/virt-probe.js', import.meta.url)),
  'virt-freezer': fileURLToPath(new URL('./cli/virt-freezer.js', import.meta.url)),
  'container-disk': fileURLToPath(new URL('../build/container-disk', import.meta.url)),
} as const;

// Two facts KubeVirt's converter reads from the launcher's own process rather than from the VMI: the log
// verbosity virt-controller put in the pod's environment, and the vsock namespace mode of the pod. The launcher
// reads them here and hands them to the pure converter as context fields.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

const INT32_MAX = 2 ** 31 - 1;
const INT32_MIN = -(2 ** 31);
/** Go's strconv.Atoi range (int64): a longer number is an error there, so no verbosity at all. */
const INT64_LIMIT = 2 ** 63;

/**
 * VIRT_LAUNCHER_LOG_VERBOSITY as KubeVirt's converter parses it (a decimal integer with an optional sign, nothing
 * else): unset, empty or not a number gives undefined, which means no firmware debug log. Values past the context's
 * int32 are clamped: only "above 5" matters.
 */
export function launcherLogVerbosity(env: NodeJS.ProcessEnv): number | undefined {
  const text = env.VIRT_LAUNCHER_LOG_VERBOSITY;
  if (text === undefined || !/^[+-]?\d+$/.test(text)) return undefined;
  const value = Number(text);
  if (Math.abs(value) >= INT64_LIMIT) return undefined;
  return Math.min(INT32_MAX, Math.max(INT32_MIN, value));
}

/**
 * Whether the pod's vsock namespace is in local mode (`<proc>/sys/net/vsock/ns_mode` reads `local`). A kernel
 * without the file, an unreadable file or any other value is global mode, as in KubeVirt.
 */
export async function vsockLocalNamespace(procRoot = '/proc'): Promise<boolean> {
  const text = await readFile(join(procRoot, 'sys/net/vsock/ns_mode'), 'utf8').catch(() => '');
  return text.trim() === 'local';
}

// Which libvirt log filters the pod's daemon gets. virt-controller turns libvirt's debug logs on for a pod in two
// ways: VIRT_LAUNCHER_LOG_VERBOSITY above 5 (the same threshold that adds SeaBIOS's debug console), or
// LIBVIRT_DEBUG_LOGS in the environment (the VMI's debug-logs label). The higher the verbosity, the fewer noisy
// categories are held back to warnings; `--libvirt-log-filters` overrides both. With no filters the daemon logs
// warnings and errors only.
import { launcherLogVerbosity } from '../domain/sync/launcher-debug-facts.js';

/** Verbosity at which the debug filters start (KubeVirt's external-log threshold). */
const THRESHOLD = 5;

/** Categories held back (3: warnings, 4: errors) at every verbosity; lower verbosities hold back more. */
const HELD_BACK_ALWAYS = [
  '3:remote',
  '4:event',
  '3:util.json',
  '3:util.object',
  '3:util.dbus',
  '3:util.netlink',
  '3:node_device',
  '3:rpc',
  '3:access',
];
/** Held back in addition, by how far the verbosity is from the highest step (index 0: threshold + 2 and below). */
const HELD_BACK_BELOW = [
  ['3:util.threadjob', '3:cpu.cpu'],
  ['3:qemu.qemu_monitor'],
  ['3:qemu.qemu_monitor_json', '3:conf.domain_addr'],
];
/** Everything not named above is logged at debug level. */
const ALL_OTHERS = '1:*';

/**
 * The daemon's `log_filters`, or '' for none. `custom` is `--libvirt-log-filters`; `env` the launcher's
 * environment (VIRT_LAUNCHER_LOG_VERBOSITY, LIBVIRT_DEBUG_LOGS).
 */
export function libvirtLogFilters(custom: string, env: NodeJS.ProcessEnv): string {
  if (custom) return custom;
  let verbosity = launcherLogVerbosity(env) ?? -1;
  if (verbosity < THRESHOLD) {
    if (env.LIBVIRT_DEBUG_LOGS === undefined) return '';
    verbosity = Number.MAX_SAFE_INTEGER; // asked for by the label: the highest step
  }
  // threshold: all three groups held back; threshold + 1: two; + 2: one; + 3 and above: none.
  const steps = Math.min(verbosity - THRESHOLD, HELD_BACK_BELOW.length);
  const heldBack = HELD_BACK_BELOW.slice(0, HELD_BACK_BELOW.length - steps).flat();
  return [...HELD_BACK_ALWAYS, ...heldBack, ALL_OTHERS].join(' ');
}

// What every SyncVMI step may use: the libvirt connection, flags, paths, metadata cache and the network
// phase-2 starter. Passing it explicitly keeps the steps plain functions that are easy to test.
import type { Connection } from '../../adapters/libvirt.js';
import type { LauncherFlags } from '../../flags.js';
import type { LauncherPaths } from '../../paths.js';
import type { MetadataCache } from '../metadata.js';
import type { VmiView } from '../../vmi.js';
import type { HookCallbacks } from '../../hooks/callbacks.js';

export interface SyncEnv {
  conn: () => Connection;
  flags: LauncherFlags;
  paths: LauncherPaths;
  metadata: MetadataCache;
  /** Network phase 2 (DHCP servers for masquerade NICs); runs only when the domain is first defined. */
  prepareNetwork: (vmi: VmiView) => Promise<void>;
  /** Resolves when the domain may be started (the launcher's virtlogd is up); absent: at once. */
  beforeDomainStart?: () => Promise<void>;
  /** The hook sidecars' callbacks (--hook-sidecars, docs/hooks.md); absent when none were requested. */
  hooks?: HookCallbacks;
  /** Where the pod's cgroup is mounted (default /sys/fs/cgroup); read for dedicated CPU placement. */
  cgroupRoot?: string;
  /** Where sysfs is mounted (default /sys); read for host devices' NUMA facts in a config drive's metadata. */
  sysfsRoot?: string;
}

/** Runs one named step and logs its duration, so each phase of a sync shows in the log. */
export async function step<T>(name: string, vmi: VmiView, fn: () => Promise<T>): Promise<T> {
  const { log } = await import('../../log.js');
  const started = performance.now();
  try {
    return await fn();
  } finally {
    log.debug(`sync step ${name} done`, {
      name: vmi.name,
      namespace: vmi.namespace,
      uid: vmi.uid,
      durationMs: Math.round((performance.now() - started) * 10) / 10,
    });
  }
}

// Hook sidecar discovery (docs/hooks.md), as KubeVirt's launcher does it before anything else starts: every
// 300 ms, look for socket files one directory below the hooks directory (one directory per sidecar
// container), ask each new one for its Info, and stop once N sidecars answered; give up after the timeout
// (the launcher's --qemu-timeout). A socket that does not accept yet is retried; a sidecar that answers
// with no supported callback version, or fails its Info call, stops the launcher.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Client } from '@grpc/grpc-js';
import { InfoService } from '../gen/kubevirt/hooks/info/info.js';
import type { HookPoint } from '../gen/kubevirt/hooks/info/info.js';
import { callUnary, openChannel, waitForReady } from '../grpc/unary.js';
import { log } from '../log.js';

/** Newest first: a sidecar is called with the newest version both sides know. */
export const SUPPORTED_VERSIONS = ['v1alpha3', 'v1alpha2', 'v1alpha1'] as const;
export type HookVersion = (typeof SUPPORTED_VERSIONS)[number];
export type HookPointName = 'OnDefineDomain' | 'PreCloudInitIso' | 'Shutdown';

export interface HookSidecar {
  socketPath: string;
  version: HookVersion;
  name: string;
  hookPoints: HookPoint[];
}

/** The sidecars to call at each hook point, in calling order. */
export type HookRegistry = Map<string, HookSidecar[]>;

export class HookError extends Error {
  constructor(
    message: string,
    readonly socketPath?: string,
  ) {
    super(message);
    this.name = 'HookError';
  }
}

export interface CollectOptions {
  timeoutMs: number;
  pollMs?: number;
  /** Dial and Info deadline per socket (KubeVirt: 1 s each). */
  callTimeoutMs?: number;
}

/** Socket files in the subdirectories of `dir` (directories themselves and deeper levels are ignored). */
async function socketFiles(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const sub = join(dir, entry.name);
    for (const file of await readdir(sub, { withFileTypes: true })) {
      if (!file.isDirectory()) found.push(join(sub, file.name));
    }
  }
  return found;
}

/** Info of one sidecar; undefined when its socket does not accept a connection yet. */
export async function probeSidecar(socketPath: string, callTimeoutMs = 1000): Promise<HookSidecar | undefined> {
  const channel: Client = openChannel(socketPath);
  try {
    try {
      await waitForReady(channel, callTimeoutMs);
    } catch {
      log.info(`Sidecar server might not be ready yet: ${socketPath}`);
      return undefined;
    }
    const info = await callUnary(channel, InfoService.info, {}, callTimeoutMs).catch((err: unknown) => {
      throw new HookError(`Failed to process sidecar socket: ${socketPath}: ${(err as Error).message}`, socketPath);
    });
    const version = SUPPORTED_VERSIONS.find((v) => info.versions.includes(v));
    if (!version) {
      throw new HookError(
        `Hook sidecar does not expose a supported version. Exposed versions: [${info.versions.join(' ')}], ` +
          `supported versions: [${SUPPORTED_VERSIONS.join(' ')}]`,
        socketPath,
      );
    }
    return { socketPath, version, name: info.name, hookPoints: info.hookPoints };
  } finally {
    channel.close();
  }
}

/**
 * Each hook point's sidecars in calling order: higher priority first, equal priorities by the sidecar's
 * name. (KubeVirt means to sort this way but sorts each sidecar's own list of points, leaving discovery
 * order; with one sidecar per point, or distinct priorities registered in order, both agree.)
 */
export function registryOf(sidecars: HookSidecar[]): HookRegistry {
  const entries: Array<{ point: string; priority: number; sidecar: HookSidecar }> = [];
  for (const sidecar of sidecars) {
    for (const hp of sidecar.hookPoints) entries.push({ point: hp.name, priority: hp.priority, sidecar });
  }
  entries.sort((a, b) => b.priority - a.priority || a.sidecar.name.localeCompare(b.sidecar.name));
  const registry: HookRegistry = new Map();
  for (const e of entries) registry.set(e.point, [...(registry.get(e.point) ?? []), e.sidecar]);
  return registry;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Waits for `count` sidecars in `dir` and returns who to call at each hook point. */
export async function collectHookSidecars(dir: string, count: number, options: CollectOptions): Promise<HookRegistry> {
  if (!Number.isInteger(count) || count < 0) throw new HookError(`--hook-sidecars must be a count, got ${count}`);
  const deadline = Date.now() + options.timeoutMs;
  const processed = new Map<string, HookSidecar>();
  while (processed.size < count) {
    for (const path of await socketFiles(dir).catch((err: unknown) => {
      throw new HookError(`cannot read the hooks directory ${dir}: ${(err as Error).message}`);
    })) {
      if (processed.has(path)) continue;
      const sidecar = await probeSidecar(path, options.callTimeoutMs);
      if (sidecar) processed.set(path, sidecar);
    }
    if (processed.size >= count) break;
    if (Date.now() >= deadline) {
      throw new HookError('Failed to collect all expected sidecar hook sockets within given timeout');
    }
    await sleep(options.pollMs ?? 300);
  }
  log.info('Collected all requested hook sidecar sockets');
  const registry = registryOf([...processed.values()]);
  const order = [...registry].map(([point, list]) => `${point}: ${list.map((s) => s.socketPath).join(', ')}`);
  log.info(`Sorted all collected sidecar sockets per hook point based on their priority and name: ${order.join('; ')}`);
  return registry;
}

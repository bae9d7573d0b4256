// The disk half of the runtime reconcile (issue 20): attach hotplug volumes that appeared in the VMI, detach
// those that left it (waiting until the guest has let go), and grow disks whose backing file grew. Attaching
// several disks is all or nothing: when one fails, the ones this sync attached are detached again.
import { stat } from 'node:fs/promises';
import { loadEphemeralDisk } from '../../../adapters/ephemeral-disk.js';
import { log } from '../../../log.js';
import { applyDiskCacheModes } from '../storage/disk-cache.js';
import { liveDisks, planDisks, type DiskDevice } from './disk-plan.js';
import { RuntimeSyncError, type RuntimeDomain, type RuntimeEnv } from './types.js';

/** libvirt's StatsTypes.BLOCK: the per-disk group with `block.<i>.name` and `block.<i>.capacity`. */
const STATS_BLOCK = 32;
const LIVE_AND_CONFIG = { live: true, config: true } as const;

export interface DiskChanges {
  attached: string[];
  detached: string[];
  resized: string[];
}

async function ensureBacked(env: RuntimeEnv, disk: DiskDevice): Promise<void> {
  const found = await stat(env.local(disk.source)).catch(() => undefined);
  if (!found || !(found.isFile() || found.isBlockDevice())) {
    throw new RuntimeSyncError(
      `spec.volumes[${disk.volume}]`,
      disk.source,
      'the hotplug volume is not at its path in the pod; nothing was attached',
    );
  }
}

async function attachOne(env: RuntimeEnv, dom: RuntimeDomain, disk: DiskDevice): Promise<void> {
  // Same cache/io choice as at define time, made now that the file exists.
  const xml = await applyDiskCacheModes(disk.xml, { eph: await loadEphemeralDisk(), local: env.local });
  try {
    await dom.attachDevice(xml, LIVE_AND_CONFIG);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new RuntimeSyncError(`spec.volumes[${disk.volume}]`, disk.source, `attaching failed: ${reason}`, {
      cause: err,
    });
  }
  log.info(`Attached disk ${disk.volume}, target ${disk.target}`);
}

/** Resolves once libvirt reports the device gone (event) or the live XML no longer has its target. */
async function waitRemoved(env: RuntimeEnv, dom: RuntimeDomain, disk: DiskDevice): Promise<void> {
  const conn = env.conn();
  let removed = false;
  const onRemoved = (e: { name: string; alias: string }) => {
    if (e.name === dom.name && e.alias === disk.alias) removed = true;
  };
  conn.on('deviceRemoved', onRemoved);
  try {
    await dom.detachDevice(disk.xml, LIVE_AND_CONFIG);
    const deadline = Date.now() + env.detachTimeoutMs;
    while (!removed) {
      const live = await dom.getXMLDesc();
      if (!liveDisks(live).some((d) => d.target === disk.target)) return;
      if (Date.now() > deadline) {
        throw new RuntimeSyncError(
          `spec.volumes[${disk.volume}]`,
          disk.source,
          `the guest did not release ${disk.target} within ${env.detachTimeoutMs} ms`,
        );
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  } finally {
    conn.off('deviceRemoved', onRemoved);
  }
}

async function detachAll(env: RuntimeEnv, dom: RuntimeDomain, disks: DiskDevice[]): Promise<void> {
  for (const disk of disks) {
    await waitRemoved(env, dom, disk);
    log.info(`Detached disk ${disk.volume}, target ${disk.target}`);
  }
}

/** Grows a hotplug disk whose file is now larger than the guest sees it (virDomainBlockResize). */
async function growDisks(env: RuntimeEnv, dom: RuntimeDomain, liveXml: string): Promise<string[]> {
  const candidates = liveDisks(liveXml).filter(
    (d) =>
      d.source.startsWith(`${env.hotplugDir.replace(/\/+$/, '')}/`) && /^<disk\b[^>]*\stype=["']file["']/.test(d.xml),
  );
  if (candidates.length === 0) return [];
  const { stats } = await dom.getStats({ types: STATS_BLOCK });
  const capacity = new Map<string, number>();
  for (let i = 0; i < Number(stats['block.count'] ?? 0); i++) {
    capacity.set(String(stats[`block.${i}.name`]), Number(stats[`block.${i}.capacity`] ?? 0));
  }
  const resized: string[] = [];
  for (const disk of candidates) {
    const size = (await stat(env.local(disk.source)).catch(() => undefined))?.size;
    const seen = capacity.get(disk.target);
    if (size === undefined || seen === undefined || size <= seen) continue;
    await dom.blockResize(disk.target, size).catch((err: unknown) => {
      throw new RuntimeSyncError(`spec.volumes[${disk.volume}]`, disk.source, 'resizing failed', { cause: err });
    });
    log.info(`Resized disk ${disk.volume}, target ${disk.target}, from ${seen} to ${size} bytes`);
    resized.push(disk.volume);
  }
  return resized;
}

export async function syncDisks(
  env: RuntimeEnv,
  dom: RuntimeDomain,
  desiredXml: string,
  liveXml: string,
): Promise<DiskChanges> {
  const plan = planDisks(desiredXml, liveXml, env.hotplugDir);
  await detachAll(env, dom, plan.detach);
  for (const disk of plan.attach) await ensureBacked(env, disk);
  const attached: DiskDevice[] = [];
  try {
    for (const disk of plan.attach) {
      await attachOne(env, dom, disk);
      attached.push(disk);
    }
  } catch (err) {
    // Leave the domain as this sync found it: take back what it attached before the failure.
    await detachAll(env, dom, attached.reverse()).catch((undo: unknown) =>
      log.error('Detaching after a failed attach failed', { reason: String(undo) }),
    );
    throw err;
  }
  const resized = await growDisks(env, dom, plan.attach.length > 0 ? await dom.getXMLDesc() : liveXml);
  return {
    attached: attached.map((d) => d.volume),
    detached: plan.detach.map((d) => d.volume),
    resized,
  };
}

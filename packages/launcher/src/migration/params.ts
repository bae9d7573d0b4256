// The parameters of the source's virDomainMigrateToURI3, as KubeVirt builds them: the destination libvirt and
// QEMU's streams go through the node's migration proxy, whose Unix sockets sit in the pod's share directory:
//   <share>/migrationproxy/<uid>-source.sock         the target's libvirt daemon (peer-to-peer connection)
//   <share>/migrationproxy/<uid>-49152-source.sock   QEMU's migration stream
//   <share>/migrationproxy/<uid>-49153-source.sock   the disk copy (NBD), for a block migration only
import { join } from 'node:path';
import { children, child, parseXml } from '../xml/parse.js';
import type { VmiView } from '../vmi.js';
import type { MigrationOptions } from './options.js';

/** virt-handler's migration proxy ports (migration-proxy.go): the direct migration and the block migration. */
export const DIRECT_MIGRATION_PORT = 49152;
export const BLOCK_MIGRATION_PORT = 49153;

export function proxyKey(uid: string, port = 0): string {
  return port ? `${uid}-${port}` : uid;
}

/** `<share>/migrationproxy/<key>-source.sock`, the name both pods and the proxy agree on. */
export function proxySocket(shareDir: string, key: string): string {
  return join(shareDir, 'migrationproxy', `${key}-source.sock`);
}

/**
 * Volumes whose disks are copied: generated ones (container disks, cloud-init, config volumes) always; shared
 * volumes (claims, shared host disks) never, unless the VMI lists them as migrated volumes.
 */
function volumeClasses(vmi: VmiView, migrated: Set<string>): { shared: Set<string>; generated: Set<string> } {
  const shared = new Set<string>();
  const generated = new Set<string>();
  for (const v of vmi.volumes) {
    if (v.persistentVolumeClaim || v.dataVolume) {
      if (!migrated.has(v.name)) shared.add(v.name);
    } else if (v.hostDisk) {
      if (!migrated.has(v.name) && v.hostDisk.shared) shared.add(v.name);
    } else if (
      v.configMap ||
      v.secret ||
      v.downwardAPI ||
      v.serviceAccount ||
      v.cloudInitNoCloud ||
      v.cloudInitConfigDrive ||
      v.containerDisk
    ) {
      generated.add(v.name);
    }
  }
  return { shared, generated };
}

/** The targets (`vda`) of the disks a block migration copies, from the domain XML: no CD-ROMs, no shared volumes. */
export function diskTargetsToCopy(domainXml: string, vmi: VmiView, migratedVolumes: string[] = []): string[] {
  const { shared, generated } = volumeClasses(vmi, new Set(migratedVolumes));
  const devices = child(parseXml(domainXml), 'devices');
  const out: string[] = [];
  for (const disk of children(devices, 'disk')) {
    if (disk.attrs.device === 'cdrom') continue;
    const volume = (child(disk, 'alias')?.attrs.name ?? '').replace(/^ua-/, '');
    if (child(disk, 'readonly') && !generated.has(volume)) continue;
    if ((disk.attrs.type !== 'file' && disk.attrs.type !== 'block') || shared.has(volume)) continue;
    const target = child(disk, 'target')?.attrs.dev;
    if (target) out.push(target);
  }
  return out;
}

export interface MigrationCall {
  destUri: string;
  params: {
    uri: string;
    destName: string;
    destXml: string;
    persistXml: string;
    bandwidthMiB?: number;
    migrateDisks?: string[];
    disksUri?: string;
    parallelConnections?: number;
    compression?: string;
  };
}

export function migrationCall(
  o: {
    shareDir: string;
    uid: string;
    domainName: string;
    migratableXml: string;
    copyDisks: string[];
    /** A non-root pod's daemons run in session mode: the target's is reached as qemu+unix:///session. */
    sessionMode: boolean;
  },
  options: MigrationOptions,
): MigrationCall {
  const { shareDir, uid } = o;
  const params: MigrationCall['params'] = {
    uri: `unix://${proxySocket(shareDir, proxyKey(uid, DIRECT_MIGRATION_PORT))}`,
    destName: o.domainName,
    destXml: o.migratableXml,
    persistXml: o.migratableXml,
  };
  if (options.bandwidthMiB > 0) params.bandwidthMiB = options.bandwidthMiB;
  if (options.parallelMigrationThreads !== undefined) params.parallelConnections = options.parallelMigrationThreads;
  if (options.compression) params.compression = options.compression;
  if (o.copyDisks.length > 0) {
    params.migrateDisks = o.copyDisks;
    params.disksUri = `unix://${proxySocket(shareDir, proxyKey(uid, BLOCK_MIGRATION_PORT))}`;
  }
  const mode = o.sessionMode ? 'session' : 'system';
  return { destUri: `qemu+unix:///${mode}?socket=${proxySocket(shareDir, uid)}`, params };
}

/** The flag names KubeVirt sets; the caller turns them into the face's MigrateFlags bits. */
export function migrationFlagNames(
  o: { blockMigration: boolean; paused: boolean },
  options: MigrationOptions,
): Array<
  | 'LIVE'
  | 'PEER2PEER'
  | 'PERSIST_DEST'
  | 'NON_SHARED_INC'
  | 'UNSAFE'
  | 'AUTO_CONVERGE'
  | 'POSTCOPY'
  | 'PAUSED'
  | 'PARALLEL'
  | 'COMPRESSED'
> {
  const names: ReturnType<typeof migrationFlagNames> = ['LIVE', 'PEER2PEER', 'PERSIST_DEST'];
  if (o.blockMigration) names.push('NON_SHARED_INC');
  if (options.unsafeMigration) names.push('UNSAFE');
  if (options.allowAutoConverge) names.push('AUTO_CONVERGE');
  if (options.allowPostCopy) names.push('POSTCOPY');
  if (o.paused) names.push('PAUSED');
  if (options.parallelMigrationThreads !== undefined) names.push('PARALLEL');
  if (options.compression) names.push('COMPRESSED');
  return names;
}

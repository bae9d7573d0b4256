// A SyncEnv for unit tests: a fake (or real) connection, default flags, paths under a temporary run root, and a
// network phase that only records which VMIs it was asked to prepare.
import type { Connection } from '../adapters/libvirt.js';
import { MetadataCache } from '../domain/metadata.js';
import type { SyncEnv } from '../domain/sync/env.js';
import { parseFlags } from '../flags.js';
import { resolvePaths } from '../paths.js';
import type { VmiView } from '../vmi.js';

export interface TestSyncEnv extends SyncEnv {
  /** Names of the VMIs whose network phase 2 ran, in order. */
  readonly networkPrepared: string[];
}

export function testSyncEnv(conn: Connection, runRoot: string, uid = 'uid-test'): TestSyncEnv {
  const flags = parseFlags(['--run-root', runRoot, '--uid', uid], {});
  const networkPrepared: string[] = [];
  return {
    conn: () => conn,
    flags,
    paths: resolvePaths(flags),
    metadata: new MetadataCache(),
    networkPrepared,
    prepareNetwork: async (vmi: VmiView) => {
      networkPrepared.push(vmi.name);
    },
  };
}

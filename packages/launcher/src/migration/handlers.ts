// The five migration RPCs of the cmd server, KubeVirt's messages in the log. Merged into the domain handlers.
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { CmdHandlers } from '../cmd-server/rpc-table.js';
import { ok } from '../cmd-server/rpc-table.js';
import { vmiLogFields } from '../cmd-server/vmi-log.js';
import type { SyncEnv } from '../domain/sync/env.js';
import { log } from '../log.js';
import { parseVmiRequest } from '../vmi.js';
import type { MigrationSource } from './source.js';

// Loaded at the first migration RPC: a launcher that never migrates never pays for the migration code.
const loadSource = () => import('./source.js');
const loadTarget = () => import('./target.js');

/** Total bytes of the files under a directory (the ephemeral disks a block migration copies). */
async function treeBytes(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const p = join(dir, entry.name);
    if (entry.isDirectory()) total += await treeBytes(p);
    else if (entry.isFile()) total += (await stat(p)).size;
  }
  return total;
}

export function migrationHandlers(env: SyncEnv): CmdHandlers {
  let source: MigrationSource | undefined;
  const sourceSide = async () => {
    const { MigrationSource } = await loadSource();
    source ??= new MigrationSource({
      conn: env.conn,
      metadata: env.metadata,
      shareDir: env.paths.shareDir,
      sessionMode: env.paths.xdg !== undefined,
      ephemeralDiskBytes: () => treeBytes(env.paths.ephemeralDiskDir),
    });
    return source;
  };
  return {
    migrateVirtualMachine: async (req) => {
      const vmi = parseVmiRequest(req.vmi?.vmiJson);
      const { parseMigrationOptions } = await import('./options.js');
      await (await sourceSide()).start(vmi, parseMigrationOptions(req.options));
      log.info('Signaled vmi migration', vmiLogFields(req));
      return ok();
    },
    cancelVirtualMachineMigration: async (req) => {
      await (await sourceSide()).cancel(parseVmiRequest(req.vmi?.vmiJson));
      log.info('Live migration has been aborted', vmiLogFields(req));
      return ok();
    },
    syncMigrationTarget: async (req) => {
      await (await loadTarget()).prepareMigrationTarget(env, parseVmiRequest(req.vmi?.vmiJson), req);
      log.info('Prepared migration target pod', vmiLogFields(req));
      return ok();
    },
    finalizeVirtualMachineMigration: async (req) => {
      await (await loadTarget()).finalizeMigrationTarget(env, parseVmiRequest(req.vmi?.vmiJson));
      log.info('migration finalized successfully', vmiLogFields(req));
      return ok();
    },
    signalTargetPodCleanup: async (req) => {
      // The launcher's own stop path (as on SIGTERM): it stops waiting for a domain and exits.
      (await loadTarget()).signalTargetPodCleanup(parseVmiRequest(req.vmi?.vmiJson), () =>
        process.kill(process.pid, 'SIGTERM'),
      );
      return ok();
    },
  };
}

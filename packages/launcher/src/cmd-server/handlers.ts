// Cmd RPC handlers: each one small, delegating to the DomainManager, logging KubeVirt's per-RPC message.
import type { DomainManager } from '../domain/manager.js';
import { log } from '../log.js';
import { migrationHandlers } from '../migration/handlers.js';
import { ok } from './rpc-table.js';
import type { CmdHandlers } from './rpc-table.js';
import { NO_AGENT } from './no-agent.js';
import { vmiLogFields } from './vmi-log.js';

export function domainHandlers(manager: DomainManager): CmdHandlers {
  return {
    ping: async () => ok(),
    syncVirtualMachine: async (req) => {
      const vmi = await manager.sync(req);
      log.info('Synced vmi', {
        kind: 'VirtualMachineInstance',
        name: vmi.name,
        namespace: vmi.namespace,
        uid: vmi.uid,
      });
      return ok();
    },
    pauseVirtualMachine: async (req) => {
      await manager.pause(req);
      log.info('Paused vmi', vmiLogFields(req));
      return ok();
    },
    unpauseVirtualMachine: async (req) => {
      await manager.unpause(req);
      log.info('Unpaused vmi', vmiLogFields(req));
      return ok();
    },
    shutdownVirtualMachine: async (req) => {
      await manager.shutdown(req);
      log.info('Signaled vmi shutdown', vmiLogFields(req));
      return ok();
    },
    killVirtualMachine: async (req) => {
      const { parseVmiRequest } = await import('../vmi.js');
      await manager.kill(parseVmiRequest(req.vmi?.vmiJson).domainName);
      log.info('Signaled vmi kill', vmiLogFields(req));
      return ok();
    },
    deleteVirtualMachine: async (req) => {
      await manager.delete(req);
      log.info('Signaled vmi deletion', vmiLogFields(req));
      return ok();
    },
    resetVirtualMachine: async (req) => {
      await manager.reset(req);
      return ok();
    },
    softRebootVirtualMachine: async (req) => {
      await manager.softReboot(req);
      return ok();
    },
    getDomain: async () => ({ response: ok(), domain: await manager.getDomainJson() }),
    getDomainStats: async () => ({ response: ok(), domainStats: await manager.getDomainStats() }),
    getDomainDirtyRateStats: async () => ({
      response: ok(),
      dirtyRateMbs: BigInt(Math.round(await manager.getDirtyRateMbps())),
    }),
    syncVirtualMachineCpUs: async (req) => {
      await manager.resizeRunning(req, 'cpus');
      log.info('Synced vmi CPUs', vmiLogFields(req));
      return ok();
    },
    syncVirtualMachineMemory: async (req) => {
      await manager.resizeRunning(req, 'memory');
      log.info('Synced vmi memory', vmiLogFields(req));
      return ok();
    },
    getQemuVersion: async () => ({ response: ok(), version: await manager.getQemuVersion() }),
    // Without a guest agent KubeVirt answers these with success and its empty JSON (the handler's metrics scrape
    // drops a VMI's metrics on an error from GetFilesystems). The launcher lays agent/handlers.ts over this table.
    getGuestInfo: async () => ({ response: ok(), guestInfoResponse: NO_AGENT.guestInfo }),
    getUsers: async () => ({ response: ok(), guestUserListResponse: NO_AGENT.users }),
    getFilesystems: async () => ({ response: ok(), guestFilesystemsResponse: NO_AGENT.filesystems }),
    ...migrationHandlers(manager.syncEnv),
  };
}

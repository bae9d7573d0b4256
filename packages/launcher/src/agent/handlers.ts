// The Cmd RPCs that go through the guest agent (docs/cmd-contract.md#guest-agent-rpcs). `base` is the
// handler table they extend: SoftReboot falls back to its ACPI path, Unpause and Sync are wrapped (guest time,
// access credentials). Exec and GuestPing end with a gRPC error on failure, as KubeVirt's do.
import { GrpcStatusError, ok } from '../cmd-server/rpc-table.js';
import type { CmdHandlers } from '../cmd-server/rpc-table.js';
import { vmiLogFields } from '../cmd-server/vmi-log.js';
import { STATE } from '../domain/state.js';
import { errorMessage } from '../errors.js';
import { log } from '../log.js';
import { parseVmiRequest } from '../vmi.js';
import type { AccessCredentials } from './access-credentials.js';
import type { GuestAgent } from './guest-agent.js';
import { filesystemsJson, guestInfoJson, usersJson } from './guest-info-json.js';

/** Whether the VMI's status has the AgentConnected condition with status True (what virt-handler saw). */
export function vmiAgentConnected(raw: Buffer): boolean {
  const doc = JSON.parse(raw.toString('utf8')) as {
    status?: { conditions?: Array<{ type?: string; status?: string }> };
  };
  return (doc.status?.conditions ?? []).some((c) => c.type === 'AgentConnected' && c.status === 'True');
}

export function agentHandlers(base: CmdHandlers, agent: GuestAgent, creds?: AccessCredentials): CmdHandlers {
  return {
    getGuestInfo: async () => ({ response: ok(), guestInfoResponse: guestInfoJson(agent.store.get()) }),
    getUsers: async () => ({ response: ok(), guestUserListResponse: usersJson(agent.store.get()) }),
    getFilesystems: async () => ({ response: ok(), guestFilesystemsResponse: filesystemsJson(agent.store.get()) }),

    guestPing: async (req) => {
      try {
        await agent.ping(req.domainName, req.timeoutSeconds);
      } catch (err) {
        throw new GrpcStatusError(errorMessage(err));
      }
      return { response: ok() };
    },

    exec: async (req) => {
      try {
        const r = await agent.exec(req.domainName, req.Command, req.Args, req.timeoutSeconds);
        return { response: ok(), exitCode: r.exitCode, stdOut: r.stdout };
      } catch (err) {
        throw new GrpcStatusError(errorMessage(err));
      }
    },

    freezeVirtualMachine: async (req) => {
      const vmi = parseVmiRequest(req.vmi?.vmiJson);
      try {
        await agent.freezer.freeze(vmi.domainName, vmi.name, req.unfreezeTimeoutSeconds);
      } catch (err) {
        log.error('Failed to freeze vmi', { ...vmiLogFields(req), reason: errorMessage(err) });
        throw err;
      }
      log.info('Freezed vmi', vmiLogFields(req));
      return ok();
    },

    unfreezeVirtualMachine: async (req) => {
      const vmi = parseVmiRequest(req.vmi?.vmiJson);
      try {
        await agent.freezer.unfreeze(vmi.domainName);
      } catch (err) {
        log.error('Failed to unfreeze vmi', { ...vmiLogFields(req), reason: errorMessage(err) });
        throw err;
      }
      log.info('Unfreezed vmi', vmiLogFields(req));
      return ok();
    },

    softRebootVirtualMachine: async (req) => {
      const vmi = parseVmiRequest(req.vmi?.vmiJson);
      const acpi = async (): Promise<void> => {
        if (!base.softRebootVirtualMachine) throw new Error('no ACPI soft reboot');
        const res = await base.softRebootVirtualMachine(req);
        if (!res.success) throw new Error(res.message);
      };
      await agent.softReboot(vmi.domainName, vmiAgentConnected(vmi.raw), acpi);
      log.info('Soft rebooted vmi', vmiLogFields(req));
      return ok();
    },

    unpauseVirtualMachine: async (req) => {
      if (!base.unpauseVirtualMachine) throw new Error('no unpause');
      const vmi = parseVmiRequest(req.vmi?.vmiJson);
      const wasPaused = await agent
        .lookup(vmi.domainName)
        .then((d) => d.getState())
        .then((s) => s.stateCode === STATE.paused)
        .catch(() => false);
      const res = await base.unpauseVirtualMachine(req);
      // The clock stood still while paused: set it through the agent (best effort, in the background).
      if (res.success && wasPaused) void agent.time.setAfterUnpause(vmi.domainName);
      return res;
    },

    syncVirtualMachine: async (req) => {
      if (!base.syncVirtualMachine) throw new Error('no sync');
      const res = await base.syncVirtualMachine(req);
      if (res.success && creds) {
        const vmi = parseVmiRequest(req.vmi?.vmiJson);
        creds.handle(vmi.raw, vmi.domainName);
      }
      return res;
    },
  };
}

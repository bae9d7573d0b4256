// Puts the guest agent into the launcher: the GetDomain/event overlay, a MODIFIED event when the agent's
// state or announced facts change, the agent RPCs over the base handler table, and access credentials.
import { join } from 'node:path';

import type { Connection } from '../adapters/libvirt.js';
import type { CmdHandlers } from '../cmd-server/rpc-table.js';
import { setDomainStatusOverlay } from '../domain/domain-status-overlay.js';
import type { MetadataCache } from '../domain/metadata.js';
import type { DomainEventMonitor } from '../events/domain-events.js';
import { errorMessage } from '../errors.js';
import type { LauncherFlags } from '../flags.js';
import { log } from '../log.js';
import type { LauncherPaths } from '../paths.js';
import { AccessCredentials } from './access-credentials.js';
import { GuestAgent } from './guest-agent.js';
import { agentHandlers } from './handlers.js';
import type { AgentConnection, K8sEventSink } from './types.js';

export interface GuestAgentWiring {
  agent: GuestAgent;
  handlers(base: CmdHandlers): CmdHandlers;
  attach(conn: Connection): void;
  close(): void;
}

/**
 * The launcher's connection hands out the binding's own Domain objects, which have the agent calls; the
 * launcher's Connection type only names what the rest of it uses.
 */
export function asAgentConnection(conn: Connection): AgentConnection {
  return conn as unknown as AgentConnection;
}

/** Without a sender (tests), the event is only logged with KubeVirt's reason. */
const logEvent: K8sEventSink = async (e) => {
  log.warning(e.message, { reason: e.reason, type: e.type });
};

export function startGuestAgent(o: {
  flags: LauncherFlags;
  paths: LauncherPaths;
  domainName: string;
  conn: () => Connection;
  /** The agent calls' own connection (main/launcher.ts opens it); `conn` while it is not up. */
  callConn?: () => Connection | undefined;
  events: DomainEventMonitor;
  metadata: MetadataCache;
  sendEvent?: K8sEventSink;
}): GuestAgentWiring {
  const agent = new GuestAgent({
    domainName: o.domainName,
    conn: () => asAgentConnection(o.conn()),
    callConn: () => {
      const conn = o.callConn?.();
      return conn ? asAgentConnection(conn) : undefined;
    },
    intervals: o.flags.agentIntervals,
    onChange: () => o.events.refresh(),
    vmiName: o.flags.name,
    sendEvent: o.sendEvent ?? logEvent,
    migrationInProgress: () => {
      const m = o.metadata.get().Migration;
      return m?.StartTimestamp !== undefined && m.EndTimestamp === undefined;
    },
  });
  setDomainStatusOverlay(() => agent.overlay());
  const creds = new AccessCredentials({
    secretBaseDir: join(o.paths.privateDir, 'secret'),
    lookup: (name) => agent.lookup(name),
    report: (result) =>
      o.metadata.update((m) => {
        m.AccessCredential = result;
      }),
  });
  return {
    agent,
    handlers: (base) => ({ ...base, ...agentHandlers(base, agent, creds) }),
    attach: (conn) => {
      agent
        .attach(asAgentConnection(conn))
        .catch((err: unknown) => log.error('guest agent: attach failed', { reason: errorMessage(err) }));
    },
    close: () => {
      agent.close();
      creds.stop();
      setDomainStatusOverlay(undefined);
    },
  };
}

// Connection: one libvirt connection, an EventEmitter of its domains' events and of its own death.
import { EventEmitter } from 'node:events';

import { Domain } from './domain.js';
import { call } from './errors.js';
import { ListDomainsFlags, formatVersion } from './flags.js';
import {
  AGENT_REASON_NAMES,
  AGENT_STATE_NAMES,
  CLOSE_REASON_NAMES,
  LIFECYCLE_DETAIL_NAMES,
  LIFECYCLE_EVENT_NAMES,
} from './libvirt-names.js';
import { addon } from './native.js';
import type { NativeConnection, NativeEventKind, NativeEventPayload } from './native.js';
import type {
  AgentLifecycleEvent,
  CloseReason,
  ConnectOptions,
  ConnectionEvents,
  DomainStats,
  LifecycleEventName,
} from './types.js';

/** Opens a connection (`test:///default`, `qemu:///system`, `qemu+unix:///system?socket=…`). */
export async function connect(uri: string, options: ConnectOptions = {}): Promise<Connection> {
  // The native side needs the callback before the connection exists; events queue until `conn` is set,
  // and none can arrive before the promise settles (they are delivered on this same JS thread).
  const target: { conn?: Connection } = {};
  const onEvent = (kind: NativeEventKind, payload: NativeEventPayload): void => {
    try {
      target.conn?.dispatch(kind, payload);
    } catch (err) {
      // A throwing listener must surface like any listener error, not vanish inside the native callback.
      process.nextTick(() => {
        throw err;
      });
    }
  };
  const native = await call(
    addon.connect(uri, options.readOnly ?? false, options.keepAliveInterval ?? 5, options.keepAliveCount ?? 3, onEvent),
  );
  target.conn = new Connection(native, uri);
  return target.conn;
}

export class Connection extends EventEmitter<ConnectionEvents> {
  private closed = false;
  private lostReason: CloseReason | undefined;

  /** @internal use connect() */
  constructor(
    private readonly native: NativeConnection,
    readonly uri: string,
  ) {
    super();
  }

  /** Why the daemon went away, once it has (the `close` event's reason). */
  get lost(): CloseReason | undefined {
    return this.lostReason;
  }

  /** @internal called by the native event callback on the JS thread. */
  dispatch(kind: NativeEventKind, p: NativeEventPayload): void {
    // Events already queued when close() stopped delivery are dropped: none is emitted after close().
    if (this.closed) return;
    switch (kind) {
      case 'lifecycle': {
        const event = (LIFECYCLE_EVENT_NAMES[p.first] ?? `unknown_${p.first}`) as LifecycleEventName;
        const detail = LIFECYCLE_DETAIL_NAMES[event]?.[p.second] ?? `unknown_${p.second}`;
        this.emit('domainEvent', {
          name: p.name,
          uuid: p.uuid,
          event,
          detail,
          eventCode: p.first,
          detailCode: p.second,
        });
        break;
      }
      case 'reboot':
        this.emit('reboot', { name: p.name, uuid: p.uuid });
        break;
      case 'deviceAdded':
      case 'deviceRemoved':
        this.emit(kind, { name: p.name, uuid: p.uuid, alias: p.text });
        break;
      case 'agentLifecycle': {
        const state = (AGENT_STATE_NAMES[p.first] ?? 'unknown') as AgentLifecycleEvent['state'];
        const reason = AGENT_REASON_NAMES[p.second] ?? `unknown_${p.second}`;
        this.emit('agentLifecycle', {
          name: p.name,
          uuid: p.uuid,
          state,
          reason,
          stateCode: p.first,
          reasonCode: p.second,
        });
        break;
      }
      case 'memoryDeviceSizeChange':
        this.emit('memoryDeviceSizeChange', { name: p.name, uuid: p.uuid, alias: p.text, sizeKiB: p.number });
        break;
      case 'jobCompleted':
        this.emit('jobCompleted', { name: p.name, uuid: p.uuid, stats: p.params });
        break;
      case 'ioError': {
        const actions = ['none', 'pause', 'report'] as const;
        this.emit('ioError', {
          name: p.name,
          uuid: p.uuid,
          alias: p.text,
          srcPath: String(p.params.srcPath ?? ''),
          action: actions[p.first] ?? 'none',
          actionCode: p.first,
          reason: String(p.params.reason ?? ''),
        });
        break;
      }
      case 'close': {
        this.lostReason = (CLOSE_REASON_NAMES[p.first] ?? 'error') as CloseReason;
        // A dead connection must not keep the process alive; close() still frees it.
        this.native.unref();
        this.emit('close', this.lostReason);
        break;
      }
    }
  }

  /**
   * Frees the connection, its event callbacks and every Domain handle made from it. Idempotent.
   * No event is emitted after it resolves (no `close` event either: that one means the daemon went away).
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await call(this.native.close());
  }

  /** Lets the process exit while this connection is open (events keep flowing while it runs). */
  unref(): this {
    this.native.unref();
    return this;
  }

  ref(): this {
    this.native.ref();
    return this;
  }

  /** Whether the connection is open and its transport alive (false after close or daemon loss). */
  isAlive(): Promise<boolean> {
    return call(this.native.isAlive());
  }

  /** libvirt's library version, e.g. "9.0.0". */
  async getLibVersion(): Promise<string> {
    return formatVersion(await call(this.native.getLibVersion()));
  }

  /** The hypervisor's version, e.g. "7.2.0" for QEMU 7.2 (test driver: "0.0.2"). */
  async getHypervisorVersion(): Promise<string> {
    return formatVersion(await call(this.native.getVersion()));
  }

  /** Same as getHypervisorVersion on a qemu:// connection: what KubeVirt's GetQemuVersion returns. */
  getQemuVersion(): Promise<string> {
    return this.getHypervisorVersion();
  }

  getHostname(): Promise<string> {
    return call(this.native.getHostname());
  }

  /** The host capabilities XML. */
  getCapabilities(): Promise<string> {
    return call(this.native.getCapabilities());
  }

  /** Every domain, or those matching `filter` (ListDomainsFlags). */
  async listAllDomains(filter: number = 0): Promise<Domain[]> {
    const list = await call(this.native.listAllDomains(filter));
    return list.map((d) => new Domain(d));
  }

  async listActiveDomains(): Promise<Domain[]> {
    return this.listAllDomains(ListDomainsFlags.ACTIVE);
  }

  /** Defines (or redefines) a persistent domain from XML; `validate` checks it against libvirt's schema. */
  async defineXML(xml: string, opts: { validate?: boolean } = {}): Promise<Domain> {
    return new Domain(await call(this.native.defineXML(xml, opts.validate ? 1 : 0)));
  }

  /** Rejects with LibvirtError code 42 (NO_DOMAIN) when there is no such domain. */
  async lookupDomainByName(name: string): Promise<Domain> {
    return new Domain(await call(this.native.lookupByName(name)));
  }

  async lookupDomainByUUID(uuid: string): Promise<Domain> {
    return new Domain(await call(this.native.lookupByUUID(uuid)));
  }

  /** Bulk stats of every domain (virConnectGetAllDomainStats); `types` is a StatsTypes mask, 0 = all. */
  getAllDomainStats(opts: { types?: number; flags?: number } = {}): Promise<DomainStats[]> {
    return call(this.native.getAllDomainStats(opts.types ?? 0, opts.flags ?? 0));
  }
}

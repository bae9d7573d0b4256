// The one place that knows @virt-launcher/libvirt's face. The launcher codes against these interfaces; the
// package is loaded early and in parallel with the daemons' start (preloadLibvirt), with a literal specifier so the
// face stays type-checked.
import type { EventEmitter } from 'node:events';
import type * as Libvirt from '@virt-launcher/libvirt';

export type LifecycleEvent =
  'defined' | 'undefined' | 'started' | 'suspended' | 'resumed' | 'stopped' | 'shutdown' | 'pmsuspended' | 'crashed';

export interface DomainEvent {
  name: string;
  uuid: string;
  event: LifecycleEvent;
  detail: number | string;
}

export interface DomainState {
  /** virDomainState number (0 nostate … 7 pmsuspended). */
  state: number;
  reason: number;
}

export interface Domain {
  readonly name: string;
  getUUID(): Promise<string>;
  create(options?: { paused?: boolean }): Promise<void>;
  shutdown(options?: { mode?: number | string }): Promise<void>;
  destroy(options?: { graceful?: boolean }): Promise<void>;
  undefine(options?: { keepNvram?: boolean }): Promise<void>;
  suspend(): Promise<void>;
  resume(): Promise<void>;
  reset(): Promise<void>;
  reboot(options?: unknown): Promise<void>;
  getState(): Promise<DomainState>;
  getXMLDesc(options?: { inactive?: boolean }): Promise<string>;
}

export interface Connection extends EventEmitter {
  isAlive(): Promise<boolean>;
  getLibVersion(): Promise<string>;
  getHypervisorVersion(): Promise<string>;
  getCapabilities(): Promise<string>;
  listAllDomains(): Promise<Domain[]>;
  defineXML(xml: string): Promise<Domain>;
  lookupDomainByName(name: string): Promise<Domain>;
  getAllDomainStats(): Promise<unknown[]>;
  close(): Promise<void>;
}

const stateNames = ['nostate', 'running', 'blocked', 'paused', 'shutdown', 'shutoff', 'crashed', 'pmsuspended'];

/** Accepts the state as a number or a name, whichever the binding reports. */
export function normalizeState(raw: {
  state: unknown;
  reason: unknown;
  stateCode?: unknown;
  reasonCode?: unknown;
}): DomainState {
  if (typeof raw.stateCode === 'number') {
    return { state: raw.stateCode, reason: typeof raw.reasonCode === 'number' ? raw.reasonCode : 0 };
  }
  const state =
    typeof raw.state === 'number' ? raw.state : Math.max(0, stateNames.indexOf(String(raw.state).toLowerCase()));
  const reason = typeof raw.reason === 'number' ? raw.reason : Number(raw.reason) || 0;
  return { state, reason };
}

/** libvirt versions arrive as virGetVersion numbers (9000000) or strings; converter wants "9.0.0". */
export function normalizeVersion(raw: unknown): string {
  if (typeof raw === 'number' || typeof raw === 'bigint' || /^\d+$/.test(String(raw))) {
    const n = Number(raw);
    return `${Math.floor(n / 1_000_000)}.${Math.floor(n / 1000) % 1000}.${n % 1000}`;
  }
  return String(raw);
}

type LibvirtFace = typeof Libvirt;

let loading: Promise<LibvirtFace> | undefined;

/** Starts loading the binding (native addon included) so it overlaps with the daemons' start-up. */
export function preloadLibvirt(): Promise<LibvirtFace> {
  loading ??= import('@virt-launcher/libvirt');
  loading.catch(() => (loading = undefined)); // a failed load is retried on the next call
  return loading;
}

/** Thin wrapper: the connection with state/version normalised whatever the binding's spelling. */
export async function connectLibvirt(uri: string): Promise<Connection> {
  const face = await preloadLibvirt();
  // The face's Domain reports state names; the launcher's reads numbers, which wrapDomains() installs below.
  // That is the only difference the compiler finds between the two Connection types.
  const conn = (await face.connect(uri)) as unknown as Connection;
  wrapDomains(conn);
  return conn;
}

function wrapDomain(dom: Domain): Domain {
  const getState = dom.getState.bind(dom);
  (dom as { getState: () => Promise<DomainState> }).getState = async () => normalizeState(await getState());
  return dom;
}

function wrapDomains(conn: Connection): void {
  const lookup = conn.lookupDomainByName.bind(conn);
  const define = conn.defineXML.bind(conn);
  const list = conn.listAllDomains.bind(conn);
  const libVersion = conn.getLibVersion.bind(conn);
  const hvVersion = conn.getHypervisorVersion.bind(conn);
  conn.lookupDomainByName = async (name) => wrapDomain(await lookup(name));
  conn.defineXML = async (xml) => wrapDomain(await define(xml));
  conn.listAllDomains = async () => (await list()).map(wrapDomain);
  conn.getLibVersion = async () => normalizeVersion(await libVersion());
  conn.getHypervisorVersion = async () => normalizeVersion(await hvVersion());
}

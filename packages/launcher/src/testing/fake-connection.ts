// A libvirt connection held in memory, for the fast unit layer: the domain manager's and SyncVMI steps' logic
// without a daemon. It behaves as libvirt does where the launcher depends on it (lookups of a missing domain,
// create on a running domain, destroy/suspend/resume in the wrong state, undefine of a gone domain) and throws
// the binding's own LibvirtError with libvirt's ErrorCode, so error matching is exercised as in production.
// Real-stack tests (`*.stack.test.ts`) check the same behaviour against libvirtd.
import { EventEmitter } from 'node:events';
import type * as Libvirt from '@virt-launcher/libvirt';
import { preloadLibvirt } from '../adapters/libvirt.js';
import type { Connection, Domain, DomainState } from '../adapters/libvirt.js';
import { STATE } from '../domain/state.js';

type Face = Awaited<ReturnType<typeof preloadLibvirt>>;
type MethodOf<T> = { [K in keyof T]: T[K] extends (...args: never[]) => unknown ? K : never }[keyof T];
export type FakeDomainCall = MethodOf<Domain>;
export type FakeConnectionCall = 'lookupDomainByName' | 'defineXML' | 'listAllDomains';

const stateNames: Libvirt.DomainStateName[] = [
  'nostate',
  'running',
  'blocked',
  'paused',
  'shutdown',
  'shutoff',
  'crashed',
  'pmsuspended',
];

/** Reason codes the fake sets (libvirt's numbering per state). */
const REASON = { booted: 1, paused: 1, unpaused: 3, destroyed: 2, shutdown: 1, startPaused: 7 } as const;

export class FakeDomain implements Domain {
  /** Every call in order, e.g. `['getState', 'create']`. */
  readonly calls: FakeDomainCall[] = [];
  stateCode: number = STATE.shutoff;
  reasonCode = 0;
  undefineOptions: Array<{ keepNvram?: boolean } | undefined> = [];

  constructor(
    private readonly owner: FakeConnection,
    readonly name: string,
    public xml: string,
    readonly uuid: string,
  ) {}

  private active(): boolean {
    return this.stateCode === STATE.running || this.stateCode === STATE.paused || this.stateCode === STATE.blocked;
  }

  private enter(call: FakeDomainCall): void {
    this.calls.push(call);
    this.owner.throwInjected(call);
    if (!this.owner.has(this))
      this.owner.throwCode('NO_DOMAIN', `Domain not found: no domain with matching name '${this.name}'`);
  }

  private require(ok: boolean, message: string): void {
    if (!ok) this.owner.throwCode('OPERATION_INVALID', `Requested operation is not valid: ${message}`);
  }

  async getUUID(): Promise<string> {
    this.enter('getUUID');
    return this.uuid;
  }

  async create(options: { paused?: boolean } = {}): Promise<void> {
    this.enter('create');
    this.require(!this.active(), 'domain is already running');
    [this.stateCode, this.reasonCode] = options.paused
      ? [STATE.paused, REASON.startPaused]
      : [STATE.running, REASON.booted];
  }

  async shutdown(): Promise<void> {
    this.enter('shutdown');
    this.require(this.active(), 'domain is not running');
  }

  async destroy(): Promise<void> {
    this.enter('destroy');
    this.require(this.active(), 'domain is not running');
    [this.stateCode, this.reasonCode] = [STATE.shutoff, REASON.destroyed];
  }

  async undefine(options?: { keepNvram?: boolean }): Promise<void> {
    this.enter('undefine');
    this.undefineOptions.push(options);
    if (options?.keepNvram && this.owner.nvramUnsupported) {
      this.owner.throwCode(
        'INVALID_ARG',
        'invalid argument: unsupported flags (0x8) in function testDomainUndefineFlags',
      );
    }
    this.owner.forget(this);
  }

  async suspend(): Promise<void> {
    this.enter('suspend');
    this.require(this.stateCode === STATE.running, 'domain is not running');
    [this.stateCode, this.reasonCode] = [STATE.paused, REASON.paused];
  }

  async resume(): Promise<void> {
    this.enter('resume');
    this.require(this.stateCode === STATE.paused, 'domain is not paused');
    [this.stateCode, this.reasonCode] = [STATE.running, REASON.unpaused];
  }

  async reset(): Promise<void> {
    this.enter('reset');
    this.require(this.active(), 'domain is not running');
  }

  async reboot(): Promise<void> {
    this.enter('reboot');
    this.require(this.active(), 'domain is not running');
  }

  async getState(): Promise<DomainState> {
    this.enter('getState');
    const state = stateNames[this.stateCode] ?? 'nostate';
    return { state, reason: String(this.reasonCode), stateCode: this.stateCode, reasonCode: this.reasonCode };
  }

  async getXMLDesc(): Promise<string> {
    this.enter('getXMLDesc');
    return this.xml;
  }
}

export class FakeConnection extends EventEmitter<Libvirt.ConnectionEvents> implements Connection {
  readonly calls: FakeConnectionCall[] = [];
  /** Like libvirt's test driver: undefine with keepNvram fails with INVALID_ARG. */
  nvramUnsupported = false;
  private readonly domains = new Map<string, FakeDomain>();
  private readonly injected = new Map<string, Libvirt.ErrorCodeName>();
  private nextUuid = 1;

  private constructor(private readonly face: Face) {
    super();
  }

  /** Loads the binding's face (for its LibvirtError class) and opens an empty fake connection. */
  static async open(): Promise<FakeConnection> {
    return new FakeConnection(await preloadLibvirt());
  }

  /** Makes the next call of that method (on the connection or any domain) fail with that libvirt error. */
  failNext(call: FakeConnectionCall | FakeDomainCall, code: Libvirt.ErrorCodeName): void {
    this.injected.set(call, code);
  }

  /** @internal for FakeDomain */
  throwInjected(call: string): void {
    const code = this.injected.get(call);
    if (code === undefined) return;
    this.injected.delete(call);
    this.throwCode(code, `injected failure of ${call}`);
  }

  /** @internal for FakeDomain */
  throwCode(code: Libvirt.ErrorCodeName, message: string): never {
    throw new this.face.LibvirtError(message, this.face.ErrorCode[code], this.face.ErrorDomain.DOM);
  }

  /** @internal for FakeDomain */
  has(dom: FakeDomain): boolean {
    return this.domains.get(dom.name) === dom;
  }

  /** @internal for FakeDomain */
  forget(dom: FakeDomain): void {
    if (this.has(dom)) this.domains.delete(dom.name);
  }

  /** The domain by name, for assertions; undefined when not defined. */
  domain(name: string): FakeDomain | undefined {
    return this.domains.get(name);
  }

  async isAlive(): Promise<boolean> {
    return true;
  }

  async getLibVersion(): Promise<string> {
    return '9.0.0';
  }

  async getHypervisorVersion(): Promise<string> {
    return '7.2.0';
  }

  async getCapabilities(): Promise<string> {
    return '<capabilities><host><cpu><arch>x86_64</arch></cpu></host></capabilities>';
  }

  async getAllDomainStats(): Promise<Libvirt.DomainStats[]> {
    return [];
  }

  async close(): Promise<void> {
    this.emit('close', 'client');
  }

  async listAllDomains(): Promise<Domain[]> {
    this.calls.push('listAllDomains');
    this.throwInjected('listAllDomains');
    return [...this.domains.values()];
  }

  async defineXML(xml: string): Promise<FakeDomain> {
    this.calls.push('defineXML');
    this.throwInjected('defineXML');
    const name = /<name>([^<]+)<\/name>/.exec(xml)?.[1];
    if (!name) this.throwCode('XML_ERROR', 'XML error: missing domain name');
    const existing = this.domains.get(name);
    if (existing) {
      existing.xml = xml;
      return existing;
    }
    const uuid = `00000000-0000-4000-8000-${String(this.nextUuid++).padStart(12, '0')}`;
    const dom = new FakeDomain(this, name, xml, uuid);
    this.domains.set(name, dom);
    return dom;
  }

  async lookupDomainByName(name: string): Promise<FakeDomain> {
    this.calls.push('lookupDomainByName');
    this.throwInjected('lookupDomainByName');
    const dom = this.domains.get(name);
    if (!dom) this.throwCode('NO_DOMAIN', `Domain not found: no domain with matching name '${name}'`);
    return dom;
  }
}

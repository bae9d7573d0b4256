// An in-memory guest with a guest agent, for the unit layer of src/agent/: answers the agent commands the
// launcher sends and the binding's agent calls with qemu-ga's JSON shapes, and fails as libvirt does (the
// binding's own LibvirtError with AGENT_UNRESPONSIVE) once its agent is stopped. The real qemu-ga is checked
// in guest-agent.stack.test.ts.
import type * as Libvirt from '@virt-launcher/libvirt';
import { preloadLibvirt } from '../adapters/libvirt.js';
import type { AgentConnection, AgentDomain, GuestInfo } from '../agent/types.js';
import { STATE } from '../domain/state.js';

type Face = Awaited<ReturnType<typeof preloadLibvirt>>;

export class FakeAgentDomain implements AgentDomain {
  agentRunning = true;
  frozen = false;
  stateCode: number = STATE.running;
  reasonCode = 1;
  readonly commands: string[] = [];
  readonly keys = new Map<string, string[]>();
  rebootModes: Array<string | number | undefined> = [];
  timeSet: Date[] = [];
  /** guest-exec results by path: exit code, stdout, and how many status polls before it exits. */
  programs = new Map<string, { exitcode: number; out: string; polls?: number }>();
  info: GuestInfo = {
    os: {
      id: 'debian',
      name: 'Debian GNU/Linux',
      prettyName: 'Debian GNU/Linux 12',
      versionId: '12',
      machine: 'x86_64',
    },
    hostname: 'vm1',
    timezone: { name: 'UTC', offset: 0 },
    users: [{ name: 'root', loginTime: 1_700_000_000_500 }],
    interfaces: [
      { name: 'lo', hwaddr: '00:00:00:00:00:00', addrs: [{ type: 'ipv4', addr: '127.0.0.1', prefix: 8 }] },
      {
        name: 'eth0',
        hwaddr: '02:00:00:00:00:01',
        addrs: [
          { type: 'ipv6', addr: 'fd10::2', prefix: 64 },
          { type: 'ipv4', addr: '10.0.2.2', prefix: 24 },
        ],
      },
    ],
    raw: {},
  };
  private execs = new Map<number, { left: number; exitcode: number; out: string }>();
  private nextPid = 100;

  constructor(
    private readonly face: Face,
    readonly name: string,
  ) {}

  private unresponsive(): Libvirt.LibvirtError {
    return new this.face.LibvirtError(
      'Guest agent is not responding: QEMU guest agent is not connected',
      this.face.ErrorCode.AGENT_UNRESPONSIVE,
      this.face.ErrorDomain.QEMU,
    );
  }

  private check(): void {
    if (!this.agentRunning) throw this.unresponsive();
  }

  async qemuAgentCommand(command: string | object): Promise<string> {
    this.check();
    const cmd = (typeof command === 'string' ? JSON.parse(command) : command) as {
      execute: string;
      arguments?: { path?: string; pid?: number };
    };
    this.commands.push(cmd.execute);
    const ret = (value: unknown) => JSON.stringify({ return: value });
    switch (cmd.execute) {
      case 'guest-ping':
        return ret({});
      case 'guest-info':
        return ret({
          version: '7.2.0',
          supported_commands: [{ name: 'guest-ping', enabled: true, 'success-response': true }],
        });
      case 'guest-get-fsinfo':
        return ret([
          {
            name: 'vda1',
            mountpoint: '/',
            type: 'ext4',
            'used-bytes': 10,
            'total-bytes': 100,
            disk: [{ serial: 'abc', 'bus-type': 'virtio' }],
          },
        ]);
      case 'guest-fsfreeze-status':
        return ret(this.frozen ? 'frozen' : 'thawed');
      case 'guest-exec': {
        const program = this.programs.get(cmd.arguments?.path ?? '') ?? { exitcode: 127, out: '' };
        const pid = this.nextPid++;
        this.execs.set(pid, { left: program.polls ?? 0, exitcode: program.exitcode, out: program.out });
        return ret({ pid });
      }
      case 'guest-exec-status': {
        const e = this.execs.get(cmd.arguments?.pid ?? -1);
        if (!e) throw new Error('no such pid');
        if (e.left > 0) {
          e.left--;
          return ret({ exited: false });
        }
        return ret({ exited: true, exitcode: e.exitcode, 'out-data': Buffer.from(e.out).toString('base64') });
      }
      default:
        throw new Error(`fake agent: no ${cmd.execute}`);
    }
  }

  async getGuestInfo(types = 0): Promise<GuestInfo> {
    this.check();
    const want = (bit: number) => types === 0 || (types & bit) !== 0;
    return {
      users: want(1) ? this.info.users : undefined,
      os: want(2) ? this.info.os : undefined,
      timezone: want(4) ? this.info.timezone : undefined,
      hostname: want(8) ? this.info.hostname : undefined,
      interfaces: want(64) ? this.info.interfaces : undefined,
      raw: {},
    };
  }

  async fsFreeze(): Promise<number> {
    this.check();
    this.frozen = true;
    return 1;
  }

  async fsThaw(): Promise<number> {
    this.check();
    this.frozen = false;
    return 1;
  }

  async setTime(opts: { time?: Date } = {}): Promise<void> {
    this.check();
    this.timeSet.push(opts.time ?? new Date());
  }

  async authorizedSSHKeysSet(user: string, keys: readonly string[]): Promise<void> {
    this.check();
    this.keys.set(user, [...keys]);
  }

  async reboot(opts: { mode?: string | number } = {}): Promise<void> {
    this.rebootModes.push(opts.mode);
  }

  async getState(): Promise<Libvirt.DomainState> {
    return { state: 'running', reason: 'unknown', stateCode: this.stateCode, reasonCode: this.reasonCode };
  }

  async getXMLDesc(): Promise<string> {
    const state = this.agentRunning ? 'connected' : 'disconnected';
    return `<domain><devices><channel type='unix'><target type='virtio' name='org.qemu.guest_agent.0' state='${state}'/></channel></devices></domain>`;
  }
}

export class FakeAgentConnection implements AgentConnection {
  readonly domains = new Map<string, FakeAgentDomain>();
  private listeners = new Map<string, Array<(e: never) => void>>();

  private constructor(private readonly face: Face) {}

  static async open(): Promise<FakeAgentConnection> {
    return new FakeAgentConnection(await preloadLibvirt());
  }

  add(name: string): FakeAgentDomain {
    const dom = new FakeAgentDomain(this.face, name);
    this.domains.set(name, dom);
    return dom;
  }

  async lookupDomainByName(name: string): Promise<AgentDomain> {
    const dom = this.domains.get(name);
    if (!dom) {
      throw new this.face.LibvirtError(
        `Domain not found: ${name}`,
        this.face.ErrorCode.NO_DOMAIN,
        this.face.ErrorDomain.QEMU,
      );
    }
    return dom;
  }

  on(event: string, listener: (e: never) => void): this {
    this.listeners.set(event, [...(this.listeners.get(event) ?? []), listener]);
    return this;
  }

  off(event: string, listener: (e: never) => void): this {
    this.listeners.set(
      event,
      (this.listeners.get(event) ?? []).filter((l) => l !== listener),
    );
    return this;
  }

  emit(event: 'agentLifecycle' | 'domainEvent', payload: object): void {
    for (const l of this.listeners.get(event) ?? []) (l as (e: object) => void)(payload);
  }
}

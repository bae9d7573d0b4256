// Issue 36 at the unit layer: what a hostile agent's replies become (bounded, typed as KubeVirt's structs) and
// how the call gate keeps a stuck agent from holding the handler's calls past their deadlines. The real stack
// (libvirt, a misbehaving agent in the demo guest) is agent-hostile.stack.test.ts.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { FakeAgentConnection } from '../testing/fake-agent.js';
import { AGENT_BOUNDS, boundedList, boundedString } from './bounds.js';
import { AgentCallGate, AgentDeadlineError, background, forHandler } from './call-gate.js';
import { agentVersionFrom, filesystemsFrom, interfacesFrom, osInfoFrom, usersFrom } from './convert.js';
import { GuestAgent } from './guest-agent.js';
import { filesystemsJson, guestInfoJson, usersJson } from './guest-info-json.js';
import type { GuestInfo } from './types.js';

const MiB = 1024 * 1024;
const big = 'x'.repeat(3 * MiB);
const reply = (value: unknown) => JSON.stringify({ return: value });

describe('bounded agent answers', () => {
  it('cuts strings, never inside a UTF-16 pair, and keeps non-strings out', () => {
    expect(boundedString(big)).toHaveLength(AGENT_BOUNDS.stringChars);
    const pair = 'a'.repeat(AGENT_BOUNDS.stringChars - 1) + '😀';
    expect(boundedString(pair)).toBe('a'.repeat(AGENT_BOUNDS.stringChars - 1));
    expect(boundedString({ x: 1 })).toBeUndefined();
  });

  it('ends a list at its count or byte budget', () => {
    expect(boundedList([1, 2, 3], 2, 1000)).toEqual([1, 2]);
    expect(boundedList(['aaaa', 'bbbb', 'cccc'], 10, 14)).toEqual(['aaaa', 'bbbb']);
  });

  it('keeps every answer of a guest with 3 MiB strings and 20,000 filesystems under 1 MiB', () => {
    const info: GuestInfo = {
      os: { name: big, prettyName: big, id: big, kernelRelease: big, version: big, machine: big },
      hostname: big,
      timezone: { name: big, offset: 0 },
      users: Array.from({ length: 5000 }, () => ({ name: big, domain: big, loginTime: 1500 })),
      interfaces: Array.from({ length: 5000 }, () => ({
        name: big,
        hwaddr: big,
        addrs: Array.from({ length: 500 }, () => ({ type: 'ipv4', addr: big, prefix: 24 })),
      })),
      raw: {},
    };
    // A raw reply stays under AGENT_BOUNDS.replyChars (libvirt's RPC carries no more): 256 KiB strings.
    const long = 'y'.repeat(256 * 1024);
    const fsinfo = [
      ...Array.from({ length: 3 }, () => ({
        name: long,
        mountpoint: long,
        type: 'ext4',
        disk: Array.from({ length: 100 }, () => ({ serial: 's', 'bus-type': long.slice(0, 1000) })),
      })),
      ...Array.from({ length: 20_000 }, (_, i) => ({
        name: `vd${i}`,
        mountpoint: `/m/${i}`,
        type: 'ext4',
        'used-bytes': i,
      })),
    ];
    const commands = [
      ...Array.from({ length: 3 }, () => ({ name: long })),
      ...fsinfo.map((_, i) => ({ name: `c${i}` })),
    ];
    const facts = {
      osInfo: osInfoFrom(info),
      interfaces: interfacesFrom(info),
      users: usersFrom(info),
      filesystems: filesystemsFrom(reply(fsinfo)),
      agent: agentVersionFrom(reply({ version: long, supported_commands: commands })),
      hostname: big.slice(0, AGENT_BOUNDS.stringChars),
    };
    for (const answer of [guestInfoJson(facts), usersJson(facts), filesystemsJson(facts)]) {
      expect(Buffer.byteLength(answer)).toBeLessThan(MiB);
    }
    expect(Buffer.byteLength(JSON.stringify(facts.interfaces))).toBeLessThan(AGENT_BOUNDS.interfacesBytes);
    expect(facts.filesystems.length).toBeGreaterThan(0);
    expect(facts.agent.SupportedCommands.length).toBeGreaterThan(0);
  });

  it('refuses a raw reply longer than the bound without parsing it', () => {
    expect(() => filesystemsFrom(' '.repeat(AGENT_BOUNDS.replyChars + 1))).toThrow(/characters \(over/);
  });
});

// agent-poller's Filesystem and FSDisk (KubeVirt v1.9.0 pkg/virt-launcher/virtwrap/agent-poller/agent_parser.go):
// strings for name, mountpoint, type, serial and bus-type, Go ints for the byte counts.
describe("guest-get-fsinfo entries that do not fit KubeVirt's types", () => {
  const good = {
    name: 'vda1',
    mountpoint: '/',
    type: 'ext4',
    'used-bytes': 10,
    'total-bytes': 20,
    disk: [{ serial: 's', 'bus-type': 'virtio' }],
  };
  const bad: Array<[string, unknown]> = [
    ['an object for a name', { ...good, name: { x: 1 } }],
    ['a list for a mount point', { ...good, mountpoint: ['/'] }],
    ['a number for a type', { ...good, type: 7 }],
    ['a string for a byte count', { ...good, 'used-bytes': '12' }],
    ['a fraction', { ...good, 'total-bytes': 1.5 }],
    ['a negative count', { ...good, 'total-bytes': -3 }],
    ['a count Go cannot hold', { ...good, 'used-bytes': 1e300 }],
    ['a string for the disks', { ...good, disk: 'vda' }],
    ['a number for a serial', { ...good, disk: [{ serial: 5, 'bus-type': 'virtio' }] }],
    ['not an object at all', 'vda1'],
  ];
  it.each(bad)('drops the entry with %s and keeps the good one', (_what, entry) => {
    expect(filesystemsFrom(reply([entry, good]))).toEqual([
      {
        Name: 'vda1',
        Mountpoint: '/',
        Type: 'ext4',
        UsedBytes: 10,
        TotalBytes: 20,
        Disk: [{ Serial: 's', BusType: 'virtio' }],
      },
    ]);
  });

  it('answers only JSON a Go client decodes into []v1.VirtualMachineInstanceFileSystem, whatever the guest sends', () => {
    const anyJson = fc.oneof(fc.string(), fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.object());
    const entry = fc.record(
      {
        name: anyJson,
        mountpoint: anyJson,
        type: anyJson,
        'used-bytes': anyJson,
        'total-bytes': anyJson,
        disk: fc.oneof(anyJson, fc.array(fc.record({ serial: anyJson, 'bus-type': anyJson }, { requiredKeys: [] }))),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.array(fc.oneof(entry, anyJson), { maxLength: 20 }), (list) => {
        for (const fs of JSON.parse(filesystemsJson({ filesystems: filesystemsFrom(reply(list)) })) as Array<
          Record<string, unknown>
        >) {
          for (const key of ['diskName', 'mountPoint', 'fileSystemType']) expect(typeof fs[key]).toBe('string');
          for (const key of ['usedBytes', 'totalBytes']) expect(Number.isSafeInteger(fs[key])).toBe(true);
          for (const d of (fs.disk ?? []) as Array<Record<string, unknown>>) {
            expect(typeof d.busType).toBe('string');
            if ('serial' in d) expect(typeof d.serial).toBe('string');
          }
        }
      }),
    );
  });

  it('keeps guest-info commands only with a string name and a boolean enabled', () => {
    const info = agentVersionFrom(
      reply({
        version: 7,
        supported_commands: [{ name: 'guest-ping', enabled: true }, { name: {} }, { enabled: 'yes' }, 3],
      }),
    );
    expect(info).toEqual({ Version: '', SupportedCommands: [{ name: 'guest-ping', enabled: true }] });
  });
});

describe('the agent call gate', () => {
  const never = () => new Promise<never>(() => undefined);
  const deferred = () => {
    let resolve!: (v: string) => void;
    const promise = new Promise<string>((r) => (resolve = r));
    return { promise, resolve };
  };

  it('runs one call at a time, a handler call before every waiting background call', async () => {
    const gate = new AgentCallGate();
    const first = deferred();
    const order: string[] = [];
    const running = gate.run('poll-1', background(), () => first.promise);
    const polls = [2, 3].map((i) => gate.run(`poll-${i}`, background(), async () => void order.push(`poll-${i}`)));
    const ping = gate.run('ping', forHandler(10_000), async () => void order.push('ping'));
    expect(gate.queued).toBe(3);
    first.resolve('done');
    await Promise.all([running, ...polls, ping]);
    expect(order).toEqual(['ping', 'poll-2', 'poll-3']);
  });

  it('answers a caller at its deadline while the call ahead never returns, in flight or queued', async () => {
    const gate = new AgentCallGate();
    const stuck = gate.run('stuck', forHandler(50), never);
    const queued = gate.run('queued', forHandler(50), async () => 'never runs');
    await expect(stuck).rejects.toMatchObject({ name: 'AgentDeadlineError', where: 'in flight' });
    await expect(queued).rejects.toBeInstanceOf(AgentDeadlineError);
    await expect(queued).rejects.toMatchObject({ where: 'queued' });
    // The stuck call still holds the slot (libvirt has not given up on it): the next caller also ends in time.
    await expect(gate.run('next', forHandler(50), async () => 'x')).rejects.toBeInstanceOf(AgentDeadlineError);
  });

  it('passes a call failure through and frees the slot', async () => {
    const gate = new AgentCallGate();
    await expect(gate.run('bad', forHandler(1000), () => Promise.reject(new Error('agent said no')))).rejects.toThrow(
      'agent said no',
    );
    await expect(gate.run('good', forHandler(1000), async () => 'yes')).resolves.toBe('yes');
  });
});

describe('GuestAgent on its own connection', () => {
  it('sends the agent calls over callConn, not the connection the rest of the launcher shares', async () => {
    const shared = await FakeAgentConnection.open();
    const own = await FakeAgentConnection.open();
    const onShared = shared.add('ns_vm');
    const onOwn = own.add('ns_vm');
    const agent = new GuestAgent({ domainName: 'ns_vm', conn: () => shared, callConn: () => own });
    try {
      await agent.ping('ns_vm', 3);
      await agent.poller.pollAll();
      expect(onShared.commands).toEqual([]);
      expect(onOwn.commands).toEqual(expect.arrayContaining(['guest-ping', 'guest-info', 'guest-get-fsinfo']));
    } finally {
      agent.close();
    }
  });
});

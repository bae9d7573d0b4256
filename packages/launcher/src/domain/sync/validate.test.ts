// The Sync's validation step (issue 36, items 4 and 6): interface states KubeVirt's admission refuses
// (pkg/network/admitter/admit.go, validateInterfaceStateValue, KubeVirt v1.9.0) and a VMI that is not the pod's
// own are answered success:false naming the field, and the launcher's libvirt connection is never used.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { domainHandlers } from '../../cmd-server/handlers.js';
import { buildCmdImplementation } from '../../cmd-server/rpc-table.js';
import { InvalidRequestError } from '../../errors.js';
import { FakeConnection } from '../../testing/fake-connection.js';
import { testSyncEnv } from '../../testing/sync-env.js';
import { checkInterfaceStates, parseVmiRequest } from '../../vmi.js';
import { DomainManager } from '../manager.js';
import { STATE } from '../state.js';
import { ForeignVmiError, checkPodIdentity } from './validate.js';

interface Doc {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace: string; uid: string };
  spec: { domain: { resources: object; devices: { interfaces: object[] } }; networks: object[] };
}

/** The pod's VMI: a masquerade NIC on the pod network and a bridge NIC on a Multus network. */
function podVmi(): Doc {
  return {
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachineInstance',
    metadata: { name: 'a', namespace: 'default', uid: 'uid-test' },
    spec: {
      domain: {
        resources: { requests: { memory: '64Mi' } },
        devices: {
          interfaces: [
            { name: 'default', masquerade: {} },
            { name: 'blue', bridge: {} },
          ],
        },
      },
      networks: [
        { name: 'default', pod: {} },
        { name: 'blue', multus: { networkName: 'blue-net' } },
      ],
    },
  };
}

const view = (doc: Doc) => parseVmiRequest(Buffer.from(JSON.stringify(doc)));

function refusal(run: () => void): InvalidRequestError {
  try {
    run();
  } catch (err) {
    if (err instanceof InvalidRequestError) return err;
    throw err;
  }
  throw new Error('accepted');
}

describe('interface states (KubeVirt admission, pkg/network/admitter/admit.go)', () => {
  const withStates = (states: Array<string | undefined>, patch: (d: Doc) => void = () => undefined) => {
    const doc = podVmi();
    patch(doc);
    doc.spec.domain.devices.interfaces = doc.spec.domain.devices.interfaces.map((iface, i) =>
      states[i] === undefined ? iface : { ...iface, state: states[i] },
    );
    return view(doc);
  };

  it('accepts no state, up, down, and absent on a bridge NIC of a secondary network', () => {
    for (const states of [[], ['up', 'down'], ['down', 'up'], ['', 'absent'], [undefined, 'absent']]) {
      expect(() => checkInterfaceStates(withStates(states))).not.toThrow();
    }
  });

  it.each([
    [
      'an unknown value',
      ['bogus'],
      () => undefined,
      'spec.domain.devices.interfaces[0].state',
      'spec.domain.devices.interfaces[0].state: "bogus" is not an interface state of "default"',
    ],
    [
      'absent on the pod network (masquerade)',
      ['absent'],
      () => undefined,
      'spec.domain.devices.interfaces[0].state',
      `"absent" cannot unplug "default": it is the interface of the pod's default network`,
    ],
    [
      'absent on a bridge NIC of the pod network',
      ['absent'],
      (d: Doc) => (d.spec.domain.devices.interfaces[0] = { name: 'default', bridge: {} }),
      'spec.domain.devices.interfaces[0].state',
      `"absent" cannot unplug "default": it is the interface of the pod's default network`,
    ],
    [
      'absent on a default Multus network',
      [undefined, 'absent'],
      (d: Doc) => (d.spec.networks = [{ name: 'blue', multus: { networkName: 'x', default: true } }]),
      'spec.domain.devices.interfaces[1].state',
      `"absent" cannot unplug "blue"`,
    ],
    [
      'absent on a secondary NIC that is not bridge-bound',
      [undefined, 'absent'],
      (d: Doc) => (d.spec.domain.devices.interfaces[1] = { name: 'blue', masquerade: {} }),
      'spec.domain.devices.interfaces[1].state',
      'spec.domain.devices.interfaces[1].state: "absent" is supported only on a bridge-bound interface, not on "blue"',
    ],
    [
      'a link state on SR-IOV',
      [undefined, 'down'],
      (d: Doc) => (d.spec.domain.devices.interfaces[1] = { name: 'blue', sriov: {} }),
      'spec.domain.devices.interfaces[1].state',
      '"down" is not supported on the SR-IOV interface "blue"',
    ],
    [
      'a state that is not a string',
      [7 as unknown as string],
      () => undefined,
      'spec.domain.devices.interfaces[0].state',
      'spec.domain.devices.interfaces[0].state: 7 is not an interface state',
    ],
  ])('refuses %s, naming the field and the value', (_what, states, patch, field, message) => {
    const err = refusal(() => checkInterfaceStates(withStates(states, patch)));
    expect(err.field).toBe(field);
    expect(err.message).toContain(message);
  });

  it('names every offending interface in one answer', () => {
    const err = refusal(() => checkInterfaceStates(withStates(['absent', 'bogus'])));
    expect(err.message).toMatch(
      /interfaces\[0\]\.state: "absent".*; spec\.domain\.devices\.interfaces\[1\]\.state: "bogus"/,
    );
  });
});

describe("the pod's own VMI (--name, --namespace, --uid)", () => {
  const flags = { name: 'a', namespace: 'default', uid: 'uid-test' };
  const identity = (patch: Partial<Doc['metadata']>) =>
    view({ ...podVmi(), metadata: { ...podVmi().metadata, ...patch } });

  it('accepts its own VMI, and compares only the flags that were given', () => {
    const parsed = parseVmiRequest(Buffer.from('{"metadata":{"name":"a","namespace":"default","uid":"uid-test"}}'));
    expect(() => checkPodIdentity(parsed, { ...testFlags(), ...flags })).not.toThrow();
    expect(() => checkPodIdentity(identity({ name: 'b' }), { ...testFlags(), ...flags, name: '' })).not.toThrow();
  });

  it.each([
    [{ uid: 'uid-other' }, 'metadata.uid', 'metadata.uid "uid-other" is not --uid "uid-test"'],
    [{ name: 'b' }, 'metadata.name', 'metadata.name "b" is not --name "a"'],
    [{ namespace: 'other' }, 'metadata.namespace', 'metadata.namespace "other" is not --namespace "default"'],
  ])('refuses another VMI (%o), naming what differs', (patch, field, difference) => {
    const err = refusal(() => checkPodIdentity(identity(patch), { ...testFlags(), ...flags }));
    expect(err).toBeInstanceOf(ForeignVmiError);
    expect(err.field).toBe(field);
    expect(err.message).toContain(difference);
  });
});

function testFlags() {
  return testSyncEnv(undefined as never, '/nonexistent').flags;
}

describe('SyncVirtualMachine refuses before it touches libvirt', () => {
  let root = '';
  let conn: FakeConnection;
  let sync: (doc: Doc) => Promise<unknown>;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'vlt-launcher-validate-'));
    conn = await FakeConnection.open();
    const env = testSyncEnv(conn, root);
    const manager = new DomainManager('default_a', {
      ...env,
      flags: { ...env.flags, name: 'a', namespace: 'default' },
    });
    const impl = buildCmdImplementation(domainHandlers(manager));
    const rpc = impl.syncVirtualMachine as (call: unknown, cb: (e: unknown, r: unknown) => void) => void;
    sync = (doc) =>
      new Promise((resolve, reject) => {
        const vmiJson = Buffer.from(JSON.stringify(doc));
        rpc({ request: { vmi: { vmiJson } } }, (e, r) => (e ? reject(e) : resolve(r)));
      });
  });

  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('state absent on the pod network NIC: success:false naming the field, the running domain untouched', async () => {
    const dom = await conn.defineXML(`<domain type='qemu'><name>default_a</name></domain>`);
    await dom.create();
    const before = { connection: [...conn.calls], domain: [...dom.calls] };
    const doc = podVmi();
    doc.spec.domain.devices.interfaces[0] = { name: 'default', masquerade: {}, state: 'absent' };
    const answer = (await sync(doc)) as { success: boolean; message: string };
    expect(answer.success).toBe(false);
    expect(answer.message).toContain('spec.domain.devices.interfaces[0].state: "absent"');
    expect({ connection: conn.calls, domain: dom.calls }).toEqual(before);
    expect(dom.stateCode).toBe(STATE.running);
  });

  it("another VMI than the pod's: success:false naming what differs, nothing defined or started", async () => {
    const doc = podVmi();
    doc.metadata = { name: 'intruder', namespace: 'default', uid: 'uid-intruder' };
    const answer = (await sync(doc)) as { success: boolean; message: string };
    expect(answer).toEqual({
      success: false,
      message:
        'VMI default/intruder is not this pod\'s: metadata.name "intruder" is not --name "a", metadata.uid ' +
        '"uid-intruder" is not --uid "uid-test"; nothing was defined or started',
    });
    expect(conn.calls).toEqual([]);
    expect(conn.domain('default_intruder')).toBeUndefined();
  });
});

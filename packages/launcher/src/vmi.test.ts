import { describe, expect, it } from 'vitest';
import { domainHandlers } from './cmd-server/handlers.js';
import { buildCmdImplementation } from './cmd-server/rpc-table.js';
import { DomainManager } from './domain/manager.js';
import type { SyncEnv } from './domain/sync/env.js';
import { InvalidRequestError } from './errors.js';
import { NO_VALID_VMI, parseVmiRequest } from './vmi.js';

const doc = (patch: Record<string, unknown>) =>
  Buffer.from(JSON.stringify({ metadata: { name: 'vm', namespace: 'ns', uid: 'u-1' }, spec: {}, ...patch }));

describe('VMI request validation', () => {
  it('reads identity, grace period and the domain name', () => {
    const v = parseVmiRequest(doc({ spec: { terminationGracePeriodSeconds: 7, startStrategy: 'Paused' } }));
    expect(v).toMatchObject({ name: 'vm', namespace: 'ns', uid: 'u-1', domainName: 'ns_vm' });
    expect(v.terminationGracePeriodSeconds).toBe(7);
    expect(v.startStrategy).toBe('Paused');
  });

  it('answers KubeVirt text for missing or malformed JSON', () => {
    expect(() => parseVmiRequest(undefined)).toThrow(NO_VALID_VMI);
    expect(() => parseVmiRequest(Buffer.from('[1,'))).toThrow(NO_VALID_VMI);
  });

  it.each([
    ['volume', { spec: { volumes: [{ name: '../x', emptyDisk: {} }] } }, '../x'],
    ['interface', { spec: { domain: { devices: { interfaces: [{ name: 'a/b' }] } } } }, 'a/b'],
    ['name', { metadata: { name: 'UPPER', namespace: 'ns' } }, 'UPPER'],
    ['uid', { metadata: { name: 'vm', namespace: 'ns', uid: '../../etc' } }, '../../etc'],
  ])('rejects a hostile %s and names it', (_kind, patch, bad) => {
    let err: unknown;
    try {
      parseVmiRequest(doc(patch));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InvalidRequestError);
    expect((err as Error).message).toContain(bad);
  });
});

describe('names KubeVirt admission refuses (they become paths)', () => {
  const errorOf = (patch: Record<string, unknown>): InvalidRequestError => {
    try {
      parseVmiRequest(doc(patch));
    } catch (e) {
      if (e instanceof InvalidRequestError) return e;
      throw e;
    }
    throw new Error('accepted');
  };

  it.each([
    [
      { spec: { domain: { devices: { disks: [{ name: 'ok' }, { name: '../../etc/x' }] } } } },
      'spec.domain.devices.disks[1].name',
      'spec.domain.devices.disks[1].name: "../../etc/x" is not a DNS-1123 label',
    ],
    [
      { spec: { volumes: [{ name: 'ok' }, { name: '../../etc/x', emptyDisk: {} }] } },
      'spec.volumes[1].name',
      'spec.volumes[1].name: "../../etc/x" is not a DNS-1123 label',
    ],
    [{ spec: { volumes: [{ name: 'x'.repeat(64) }] } }, 'spec.volumes[0].name', 'is not a DNS-1123 label'],
    [{ spec: { volumes: [{ name: 'Upper' }] } }, 'spec.volumes[0].name', '"Upper" is not a DNS-1123 label'],
    [
      { spec: { domain: { devices: { interfaces: [{ name: 'a b' }] } } } },
      'spec.domain.devices.interfaces[0].name',
      '"a b" is not a valid interface name',
    ],
    [
      { spec: { networks: [{ name: 'n/1', pod: {} }] } },
      'spec.networks[0].name',
      '"n/1" is not a valid interface name',
    ],
    [{ spec: { volumes: [{ name: 'a\u2028b' }] } }, 'spec.volumes[0].name', '"a\\u2028b" is not'],
  ])('%# refused, naming the field', (patch, field, message) => {
    const err = errorOf(patch);
    expect(err.field).toBe(field);
    expect(err.message).toContain(message);
  });

  it('interface and network names may use upper case and _, as KubeVirt allows', () => {
    const v = parseVmiRequest(
      doc({ spec: { domain: { devices: { interfaces: [{ name: 'My_Nic' }] } }, networks: [{ name: 'My_Nic' }] } }),
    );
    expect(v.interfaces[0]?.name).toBe('My_Nic');
    expect(v.networks[0]?.name).toBe('My_Nic');
  });

  it('SyncVirtualMachine answers success:false with the field, before anything is prepared or defined', async () => {
    // Every use of the environment (libvirt connection, paths, flags, metadata) would throw: the answer
    // proves the request was refused before any of it was touched.
    const untouchable = new Proxy({} as SyncEnv, {
      get: (_t, key) => {
        throw new Error(`touched env.${String(key)}`);
      },
    });
    const impl = buildCmdImplementation(domainHandlers(new DomainManager('ns_vm', untouchable)));
    const vmiJson = doc({
      spec: {
        domain: { devices: { disks: [{ name: 'x' }] } },
        volumes: [
          { name: 'x', emptyDisk: { capacity: '1Gi' } },
          { name: '../../etc/x', emptyDisk: { capacity: '1Gi' } },
        ],
      },
    });
    const answer = await new Promise<unknown>((resolve, reject) => {
      const sync = impl.syncVirtualMachine as (call: unknown, cb: (e: unknown, r: unknown) => void) => void;
      sync({ request: { vmi: { vmiJson } } }, (e, r) => (e ? reject(e) : resolve(r)));
    });
    expect(answer).toEqual({
      success: false,
      message: 'spec.volumes[1].name: "../../etc/x" is not a DNS-1123 label',
    });
  });
});

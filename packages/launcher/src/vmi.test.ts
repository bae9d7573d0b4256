import { describe, expect, it } from 'vitest';
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

import { status } from '@grpc/grpc-js';
import type { ServiceError } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { UsageError } from './errors.js';
import { interpretCallError, interpretResponse, isDisconnected } from './handle-error.js';
import { derivedUid, interfaceDomainAttachment, parseVmiText, syncOptions } from './vmi-file.js';

const vmiYaml = `
apiVersion: kubevirt.io/v1
kind: VirtualMachineInstance
metadata: {name: a, namespace: ns1}
spec:
  domain:
    devices:
      interfaces:
        - {name: m, masquerade: {}}
        - {name: b, bridge: {}}
        - {name: s, sriov: {}}
`;

describe('parseVmiText', () => {
  it('reads YAML and JSON alike', () => {
    const fromYaml = parseVmiText(vmiYaml, 'y');
    const fromJson = parseVmiText(JSON.stringify(fromYaml.vmi), 'j');
    expect(fromJson.vmi).toEqual(fromYaml.vmi);
    expect(fromYaml).toMatchObject({ name: 'a', namespace: 'ns1', uidDerived: true });
  });

  it('keeps a given uid and defaults the namespace', () => {
    const v = parseVmiText('kind: VirtualMachineInstance\nmetadata: {name: a, uid: u-1}\nspec: {}\n', 'f');
    expect(v).toMatchObject({ namespace: 'default', uid: 'u-1', uidDerived: false });
  });

  it.each([
    ['- a\n- b\n', 'expected one VirtualMachineInstance'],
    ['kind: VirtualMachineInstance\nspec: {}\n', 'metadata.name is missing'],
    ['kind: VirtualMachineInstance\nmetadata: {name: a}\n', 'spec is missing'],
    ['{"a": [1, }', 'not YAML or JSON'],
  ])('rejects %j as bad usage', (text, message) => {
    expect(() => parseVmiText(text, 'f')).toThrow(UsageError);
    expect(() => parseVmiText(text, 'f')).toThrow(message);
  });

  it('derives a uid shaped like a UUID, distinct per name', () => {
    expect(derivedUid('ns', 'a')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-a[0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(derivedUid('ns', 'a')).not.toBe(derivedUid('ns', 'b'));
  });
});

describe('sync options', () => {
  it('attaches masquerade and bridge interfaces as tap, nothing else', () => {
    const { vmi } = parseVmiText(vmiYaml, 'y');
    expect(interfaceDomainAttachment(vmi)).toEqual({ m: 'tap', b: 'tap' });
    expect(syncOptions(vmi)).toMatchObject({
      MemBalloonStatsPeriod: 10,
      interfaceDomainAttachment: { m: 'tap', b: 'tap' },
    });
  });
});

describe('handleError rules', () => {
  const err = (code: number, details: string) =>
    Object.assign(new Error(details), { code, details, metadata: undefined }) as unknown as ServiceError;

  it('treats resets and cancels as disconnects, passed through as is', () => {
    expect(isDisconnected(err(status.UNAVAILABLE, 'read ECONNRESET'))).toBe(true);
    expect(isDisconnected(err(status.CANCELLED, 'Cancelled on client'))).toBe(true);
    expect(isDisconnected(err(status.UNAVAILABLE, 'No connection established'))).toBe(false);
    expect(interpretCallError('Ping', err(status.UNAVAILABLE, 'read ECONNRESET')).message).toBe(
      'rpc error: code = Unavailable desc = read ECONNRESET',
    );
  });

  it('wraps other codes with the command name', () => {
    expect(interpretCallError('Kill', err(status.DEADLINE_EXCEEDED, 'Deadline exceeded')).message).toBe(
      'command Kill failed with DeadlineExceeded: rpc error: code = DeadlineExceeded desc = Deadline exceeded',
    );
  });

  it('reads the response body: failure only with a message', () => {
    expect(interpretResponse('Pause', { success: false, message: 'x "y"' })?.message).toBe(
      'server error. command Pause failed: "x \\"y\\""',
    );
    expect(interpretResponse('Pause', { success: false, message: '' })).toBeUndefined();
    expect(interpretResponse('Pause', { success: true, message: 'ignored' })).toBeUndefined();
    expect(interpretResponse('Pause', undefined)).toBeUndefined();
  });
});

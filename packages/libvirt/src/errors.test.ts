// Pure parts of the face: error naming and version formatting.
import { describe, expect, it } from 'vitest';

import { toLibvirtError } from './errors.js';
import { ErrorCode, ErrorDomain, LibvirtError, errorCodeName, formatVersion } from './index.js';

describe('LibvirtError', () => {
  it('names libvirt codes and domains from the header tables', () => {
    expect(errorCodeName(42)).toBe('NO_DOMAIN');
    expect(errorCodeName(55)).toBe('OPERATION_INVALID');
    expect(errorCodeName(9999)).toBe('UNKNOWN_9999');
    expect(ErrorCode.NO_CONNECT).toBe(5);
    expect(ErrorCode.SYSTEM_ERROR).toBe(38);
    expect(ErrorDomain.QEMU).toBe(10);
    const e = new LibvirtError('boom', 42, 10);
    expect(e).toBeInstanceOf(Error);
    expect(e).toMatchObject({ name: 'LibvirtError', codeName: 'NO_DOMAIN', domainName: 'QEMU', level: 2 });
    expect(e.describe()).toBe("LibvirtError(Code=42, Domain=10, Message='boom')");
  });

  it('turns a native rejection into a LibvirtError with its numbers', () => {
    const native = Object.assign(new Error('x'), { libvirtCode: 38, libvirtDomain: 7, libvirtLevel: 2 });
    expect(toLibvirtError(native)).toMatchObject({ code: 38, domain: 7, codeName: 'SYSTEM_ERROR', message: 'x' });
    expect(toLibvirtError(new TypeError('bad'))).toMatchObject({ code: ErrorCode.INTERNAL_ERROR, message: 'bad' });
  });
});

describe('formatVersion', () => {
  it('splits libvirt version numbers', () => {
    expect(formatVersion(9_000_000)).toBe('9.0.0');
    expect(formatVersion(7_002_022)).toBe('7.2.22');
    expect(formatVersion(2)).toBe('0.0.2');
  });
});

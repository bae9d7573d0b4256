import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  InvalidObjectNameError,
  InvalidVolumeNameError,
  validateNamespace,
  validateObjectName,
  validateVolumeName,
} from './index.js';

const HOSTILE = ['../x', '/abs', 'a/b', '', 'a\0b', 'x'.repeat(64), 'Upper', '.', '..', 'a b', 'a_b', '-a', 'a-', 'é'];

describe('names', () => {
  it.each(HOSTILE)('refuses volume %j with a typed error naming it', (volume) => {
    const error = (() => {
      try {
        validateVolumeName(volume);
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(InvalidVolumeNameError);
    expect((error as InvalidVolumeNameError).volume).toBe(volume);
  });

  it('accepts DNS-1123 labels', () => {
    for (const ok of ['a', 'rootdisk', 'disk-0', '0', 'x'.repeat(63)])
      expect(() => validateVolumeName(ok)).not.toThrow();
  });

  it('never accepts a name holding a path separator, NUL or dot', () => {
    fc.assert(
      fc.property(fc.string(), fc.constantFrom('/', '\0', '.', '..'), fc.string(), (a, bad, b) => {
        expect(() => validateVolumeName(`${a}${bad}${b}`)).toThrow(InvalidVolumeNameError);
        expect(() => validateNamespace(`${a}${bad}${b}`)).toThrow(InvalidObjectNameError);
      }),
    );
  });

  it('allows dotted VMI names but no empty, ".." or slash parts', () => {
    expect(() => validateObjectName('vm.example')).not.toThrow();
    for (const bad of ['..', '.', 'a..b', 'a/b', '/a', '', 'a.', 'A', 'x'.repeat(254)]) {
      expect(() => validateObjectName(bad)).toThrow(InvalidObjectNameError);
    }
  });
});

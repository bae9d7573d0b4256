import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidQuantityError, alignDownToMiB, parseCapacity } from './index.js';

describe('parseCapacity', () => {
  it.each([
    ['1Gi', 1073741824n],
    ['500M', 500000000n],
    ['1e9', 1000000000n],
    ['1E3', 1000n],
    ['1.5Gi', 1610612736n],
    ['0.5Ki', 512n],
    ['2Ti', 2n ** 41n],
    ['8Ei', 2n ** 63n],
    ['123', 123n],
    ['+7k', 7000n],
    ['.5k', 500n],
    ['100m', 1n],
    ['1500m', 2n],
    ['1e-3', 1n],
    ['12345678901234567890', 12345678901234567890n],
  ])('%s is %d bytes', (text, bytes) => {
    expect(parseCapacity(text)).toBe(bytes);
  });

  it.each(['', 'Gi', '1GiB', '-1Gi', '1 Gi', '1.2.3', 'abc', '1e99', '0x10', '1ki'])('refuses %j', (text) => {
    expect(() => parseCapacity(text)).toThrow(InvalidQuantityError);
  });

  it('scales binary suffixes exactly for any integer', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 2n ** 70n }), (n) => {
        expect(parseCapacity(`${n}Mi`)).toBe(n * 1048576n);
        expect(parseCapacity(`${n}G`)).toBe(n * 1000000000n);
      }),
    );
  });

  it('aligns down to whole MiB', () => {
    expect(alignDownToMiB(parseCapacity('1.5Mi'))).toBe(1048576n);
    expect(alignDownToMiB(parseCapacity('1000Ki'))).toBe(0n);
  });
});

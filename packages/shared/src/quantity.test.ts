import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ceilValue, compareQuantities, isNegative, parseQuantity, toBytes } from './index.js';

const bytes = (text: string): bigint | undefined => {
  const q = parseQuantity(text);
  return q && toBytes(q);
};
const value = (text: string): bigint | undefined => {
  const q = parseQuantity(text);
  return q && ceilValue(q);
};

describe('parseQuantity', () => {
  it.each([
    ['128Mi', 134217728n],
    ['1.5Gi', 1610612736n],
    ['500M', 500000000n],
    ['1e9', 1000000000n],
    ['1E3', 1000n],
    ['8192Ki', 8388608n],
    ['.5Ki', 512n],
    ['0.5Ki', 512n],
    ['2Ti', 2n ** 41n],
    ['8Ei', 2n ** 63n],
    ['+7k', 7000n],
    ['1.', 1n],
    ['0', 0n],
    ['12345678901234567890', 12345678901234567890n],
  ])('%s is %s', (text, expected) => {
    expect(bytes(text)).toBe(expected);
    expect(value(text)).toBe(expected);
  });

  it.each(['', 'Gi', '2Gx', '1GiB', '1ki', '1 Gi', ' 1Gi', '1Gi ', '1.2.3', '--1', '1e', '1e99', '0x10', 'abc'])(
    'refuses %j',
    (text) => {
      expect(parseQuantity(text)).toBeUndefined();
    },
  );

  it('keeps the sign', () => {
    expect(isNegative(parseQuantity('-1Gi')!)).toBe(true);
    expect(value('-1Gi')).toBe(-(1n << 30n));
  });

  it('rounds up like Quantity.Value() and fractional bytes down', () => {
    expect(value('2200m')).toBe(3n);
    expect(value('100m')).toBe(1n);
    expect(value('1e-3')).toBe(1n);
    expect(value('2')).toBe(2n);
    expect(bytes('1.5')).toBe(1n);
  });

  it('scales every suffix exactly for any integer', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 2n ** 70n }), (n) => {
        expect(value(`${n}Mi`)).toBe(n * 1048576n);
        expect(value(`${n}G`)).toBe(n * 1000000000n);
        expect(value(`${n}e2`)).toBe(n * 100n);
      }),
    );
  });

  it('compares quantities written differently', () => {
    expect(compareQuantities(parseQuantity('1Gi')!, parseQuantity('1073741824')!)).toBe(0);
    expect(compareQuantities(parseQuantity('1G')!, parseQuantity('1Gi')!)).toBe(-1);
    expect(compareQuantities(parseQuantity('1.5Gi')!, parseQuantity('1536Mi')!)).toBe(0);
    expect(compareQuantities(parseQuantity('2')!, parseQuantity('1500m')!)).toBe(1);
  });
});

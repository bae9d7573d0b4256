import { describe, expect, it } from 'vitest';
import { ceilValue, parseQuantity, toBytes } from './quantity.js';

function bytes(text: string): bigint | undefined {
  const q = parseQuantity(text);
  return q && toBytes(q);
}

describe('parseQuantity', () => {
  it.each([
    ['128Mi', 134217728n],
    ['1.5Gi', 1610612736n],
    ['500M', 500000000n],
    ['1e9', 1000000000n],
    ['8192Ki', 8388608n],
    ['8Mi', 8388608n],
    ['2Gi', 2147483648n],
    ['1E3', 1000n],
    ['.5Ki', 512n],
    ['0', 0n],
  ])('%s is %s bytes', (text, expected) => {
    expect(bytes(text)).toBe(expected);
  });

  it.each(['2Gx', '', 'Gi', '1.2.3', ' 1Gi', '1 Gi', '--1', '1e', 'abc'])('rejects %j', (text) => {
    expect(parseQuantity(text)).toBeUndefined();
  });

  it('rounds CPU values up like Quantity.Value()', () => {
    expect(ceilValue(parseQuantity('2200m')!)).toBe(3n);
    expect(ceilValue(parseQuantity('2.3')!)).toBe(3n);
    expect(ceilValue(parseQuantity('2')!)).toBe(2n);
  });

  it('rounds fractional bytes down', () => {
    expect(bytes('1.5')).toBe(1n);
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createLogger, type LogFields, type LogLevel } from './index.js';
import { lineMaker, referenceLine } from './log-line.js';

const LEVELS: LogLevel[] = ['debug', 'info', 'warning', 'error'];
const POS = 'handler.ts:58';
const TS = '2026-12-01T22:40:00.123Z';

class Named {
  constructor(readonly name: string) {}
}

// Inputs chosen where the pieces could part from the merged object: fixed key names, index-like keys, toJSON,
// undefined values, a clash between with() and the call, bigint and Error values, objects that are not plain.
const cases: Array<[string, LogFields, LogFields | undefined]> = [
  ['no fields', {}, undefined],
  ['empty fields', {}, {}],
  ['DHCP ACK', {}, { mac: '02:00:00:12:34:56', xid: 2864434397, yiaddr: '10.0.2.2', to: '255.255.255.255' }],
  ['with() fields only', { name: 'vmi-a', namespace: 'default', uid: 'u-1' }, undefined],
  ['both', { name: 'vmi-a' }, { reason: new Error('boom'), size: 5n }],
  ['a clash, the call wins', { name: 'vmi-a', namespace: 'default' }, { name: 'other', extra: 1 }],
  ['a fixed key in the call', {}, { msg: 'shadow', level: 'x', a: 1 }],
  ['a fixed key in with()', { timestamp: 'then', pos: 'here' }, { a: 1 }],
  ['index-like keys', { b: 1 }, { 10: 'ten', 2: 'two', a: 3 }],
  ['undefined values', { gone: undefined, kept: 1 }, { also: undefined, f: () => 1 }],
  ['toJSON in the call', {}, { toJSON: () => 'replaced', a: 1 }],
  ['nested values', { owner: { kind: 'Pod', n: [1, 2n] } }, { when: new Date(0), err: new Error('x'), nil: null }],
  ['an Error as fields', {}, new Error('as fields') as unknown as LogFields],
  ['an array as fields', {}, ['a', 'b'] as unknown as LogFields],
  ['a class instance as fields', {}, new Named('n') as unknown as LogFields],
  ['a null-prototype object', Object.assign(Object.create(null) as LogFields, { p: 1 }), { q: '"quoted"\n\u2028' }],
];

describe('lineMaker', () => {
  it.each(cases)('gives the reference bytes: %s', (_name, base, fields) => {
    for (const level of LEVELS) {
      const made = lineMaker('virt-dhcp', base)(level, 'sent "DHCPACK"\t\u00e9', POS, TS, fields);
      expect(made).toBe(referenceLine('virt-dhcp', level, 'sent "DHCPACK"\t\u00e9', POS, TS, base, fields));
    }
  });

  it('gives the reference bytes for any fields, message and component (fast-check)', () => {
    // Keys drawn to hit the fallbacks often: fixed names, digits, toJSON, and ordinary names shared by both sides.
    const key = fc.oneof(
      fc.constantFrom('component', 'level', 'msg', 'pos', 'timestamp', 'toJSON', '0', '7', '01', 'a', 'b', 'mac'),
      fc.string({ maxLength: 6 }),
    );
    const value = fc.oneof(fc.jsonValue(), fc.bigInt(), fc.constant(undefined), fc.string({ unit: 'binary' }));
    const fields = fc.dictionary(key, value, { maxKeys: 5 });
    fc.assert(
      fc.property(
        fc.string(),
        fc.constantFrom(...LEVELS),
        fc.string({ unit: 'binary' }),
        fields,
        fc.option(fields, { nil: undefined }),
        (component, level, msg, base, call) => {
          const made = lineMaker(component, base)(level, msg, POS, TS, call);
          expect(made).toBe(referenceLine(component, level, msg, POS, TS, base, call));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('stringifies with() fields that are objects per line, as the caller may change them', () => {
    const owner = { phase: 'Scheduled' };
    const make = lineMaker('virt-launcher', { owner });
    make('info', 'a', POS, TS);
    owner.phase = 'Running';
    expect(make('info', 'b', POS, TS)).toContain('"owner":{"phase":"Running"}');
  });
});

describe('createLogger output', () => {
  it('writes the reference bytes, pos and timestamp included', () => {
    const written: string[] = [];
    const log = createLogger({ component: 'virt-dhcp', level: 'debug', write: (l) => written.push(l) });
    const child = log.with({ name: 'vmi-a', uid: 'u-1' });
    const calls: Array<[LogLevel, string, LogFields | undefined]> = [];
    for (const [, , fields] of cases) {
      for (const level of LEVELS) {
        child[level]('a line', fields);
        calls.push([level, 'a line', fields]);
      }
    }
    expect(written).toHaveLength(calls.length);
    written.forEach((text, i) => {
      const { pos = '', timestamp = '' } = JSON.parse(text) as { pos?: string; timestamp?: string };
      const [level, msg, fields] = calls[i]!;
      // A field named pos or timestamp replaces the real one, and a toJSON the whole line: the reference then gives
      // the same bytes whatever pos and timestamp it is handed.
      const real = fields === undefined || !('pos' in fields || 'timestamp' in fields || 'toJSON' in fields);
      if (real) expect(pos).toMatch(/^log-line\.test\.ts:\d+$/);
      expect(text).toBe(referenceLine('virt-dhcp', level, msg, pos, timestamp, { name: 'vmi-a', uid: 'u-1' }, fields));
    });
  });
});

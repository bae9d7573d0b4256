import { describe, expect, it } from 'vitest';
import { createLogger, silentLogger, type LogLevel } from './index.js';

function capture(level?: LogLevel | (() => LogLevel)) {
  const lines: Record<string, unknown>[] = [];
  const log = createLogger({ component: 'virt-test', level, write: (line) => lines.push(JSON.parse(line)) });
  return { log, lines };
}

describe('createLogger', () => {
  it("writes KubeVirt's keys with the caller's file:line as pos", () => {
    const { log, lines } = capture();
    log.info('hello', { kind: 'VirtualMachineInstance' }); // the line pos must name
    const expectedLine = Number(new Error().stack?.split('\n')[1]?.match(/:(\d+):\d+\)?$/)?.[1]) - 1;
    expect(lines).toHaveLength(1);
    const [line] = lines;
    expect(Object.keys(line!).slice(0, 5)).toEqual(['component', 'level', 'msg', 'pos', 'timestamp']);
    expect(line).toMatchObject({ component: 'virt-test', level: 'info', msg: 'hello', kind: 'VirtualMachineInstance' });
    expect(line!.pos).toBe(`log.test.ts:${expectedLine}`);
    expect(Number.isNaN(Date.parse(line!.timestamp as string))).toBe(false);
  });

  it('writes nothing below the level, and reads a level function per line', () => {
    let level: LogLevel = 'warning';
    const { log, lines } = capture(() => level);
    log.debug('d');
    log.info('i');
    log.warning('w');
    level = 'debug';
    log.debug('d2');
    expect(lines.map((l) => [l.level, l.msg])).toEqual([
      ['warning', 'w'],
      ['debug', 'd2'],
    ]);
  });

  it('adds the fields of with() to every line, the call site winning on a clash', () => {
    const { log, lines } = capture();
    const vmi = log.with({ name: 'vmi-a', namespace: 'default', uid: 'u-1' });
    vmi.error('failed', { reason: new Error('boom'), size: 5n, name: 'other' });
    expect(lines[0]).toMatchObject({ name: 'other', namespace: 'default', uid: 'u-1', reason: 'boom', size: '5' });
    expect(String(lines[0]!.pos)).toMatch(/^log\.test\.ts:\d+$/);
  });

  it('keeps pos right through with()', () => {
    const { log, lines } = capture();
    log.with({ a: 1 }).with({ b: 2 }).warning('x');
    expect(String(lines[0]!.pos)).toMatch(/^log\.test\.ts:\d+$/);
    expect(lines[0]).toMatchObject({ a: 1, b: 2 });
  });

  it('v(n) writes only up to the verbosity', () => {
    const lines: string[] = [];
    const log = createLogger({ component: 'virt-test', verbosity: 3, write: (line) => lines.push(line) });
    log.v(3).info('three');
    log.v(4).info('four');
    log.v(2).with({ a: 1 }).warning('two');
    expect(lines.map((l) => (JSON.parse(l) as { msg: string }).msg)).toEqual(['three', 'two']);
    expect((JSON.parse(lines[0]!) as { pos: string }).pos).toMatch(/^log\.test\.ts:\d+$/);
  });

  it('silentLogger writes nothing and stays silent through with()', () => {
    expect(() => silentLogger.with({ a: 1 }).error('x')).not.toThrow();
  });
});

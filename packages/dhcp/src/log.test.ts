import { describe, expect, it } from 'vitest';
import { jsonLogger } from './log.js';

describe('jsonLogger', () => {
  it("writes KubeVirt's keys with the caller's file and line as pos, and honours the level", () => {
    const lines: string[] = [];
    const log = jsonLogger('virt-dhcp', { level: 'info', write: (l) => lines.push(l) });
    log.debug('hidden');
    log.warn('careful', { domain: 'x' });
    expect(lines).toHaveLength(1);
    const rec = JSON.parse(lines[0] ?? '{}') as Record<string, unknown>;
    expect(rec).toMatchObject({ component: 'virt-dhcp', level: 'warning', msg: 'careful', domain: 'x' });
    expect(rec.pos).toMatch(/^log\.test\.ts:\d+$/);
    expect(Number.isNaN(Date.parse(String(rec.timestamp)))).toBe(false);
  });
});

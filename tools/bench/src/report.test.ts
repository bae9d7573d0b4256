import { describe, expect, it } from 'vitest';
import { renderMarkdown, renderSvg } from './report.js';
import { goalMet, parseSuiteOutput, SuiteOutputError } from './suite-result.js';

const suite = {
  suite: 'ephemeral-disk',
  results: [
    {
      name: '100 write layers',
      ours: 2200,
      peer: 2000,
      unit: 'ms',
      ratio: 1.1,
      goal: '<= 1.1',
      peerName: 'qemu-img create',
    },
    { name: 'conversions', ours: 12000, peer: 3000, unit: 'ops/s', ratio: 4, goal: '<= 3' },
  ],
};

describe('parseSuiteOutput', () => {
  it('takes the last JSON line after progress output', () => {
    const out = parseSuiteOutput('x', `warming up\n{"not":"this"}\n${JSON.stringify(suite)}\n`);
    expect(out.results).toHaveLength(2);
  });
  it('names the suite and the field when a number is missing', () => {
    const bad = { suite: 'x', results: [{ name: 'n', ours: 'fast', peer: 1, ratio: 1, unit: 'ms', goal: '' }] };
    expect(() => parseSuiteOutput('x', JSON.stringify(bad))).toThrow(/results\[0\]\.ours/);
  });
  it('rejects output without a result line', () => {
    expect(() => parseSuiteOutput('dhcp', 'only progress')).toThrow(SuiteOutputError);
  });
});

describe('goalMet', () => {
  it('reads <= and >= goals and ignores others', () => {
    expect(goalMet({ ...suite.results[0]!, ratio: 1.1 })).toBe(true);
    expect(goalMet({ ...suite.results[0]!, ratio: 1.2 })).toBe(false);
    expect(goalMet({ ...suite.results[0]!, goal: '≥ 2', ratio: 3 })).toBe(true);
    expect(goalMet({ ...suite.results[0]!, goal: 'report only' })).toBeUndefined();
  });
});

describe('report', () => {
  const input = {
    date: '2026-11-29',
    machine: '2 cores',
    suites: [suite],
    failures: [{ suite: 'dhcp', error: 'a|b' }],
  };
  it('renders one row per result, marks missed goals and lists failures', () => {
    const md = renderMarkdown(input);
    expect(md).toContain(
      '| ephemeral-disk | 100 write layers | 2200 | 2000 (qemu-img create) | ms | 1.10 | <= 1.1 | yes |',
    );
    expect(md).toContain('| **no** |');
    expect(md).toContain('**dhcp**: a\\|b');
  });
  it('draws a bar per result', () => {
    const svg = renderSvg(input);
    expect(svg.match(/<rect x=/g)).toHaveLength(2);
    expect(svg).toContain('4.00×');
  });
});

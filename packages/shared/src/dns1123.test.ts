import { describe, expect, it } from 'vitest';
import { dns1123LabelProblem, dns1123SubdomainProblem, isDns1123Label, isDns1123Subdomain } from './index.js';

describe('DNS-1123 labels', () => {
  it.each(['a', 'disk0', 'my-disk', '0', 'a'.repeat(63)])('accepts %j', (name) => {
    expect(isDns1123Label(name)).toBe(true);
  });

  it.each(['', 'A', 'a_b', '-a', 'a-', 'a.b', '..', 'a/b', 'a b', 'a'.repeat(64), 'é'])('refuses %j', (name) => {
    expect(isDns1123Label(name)).toBe(false);
  });

  it('says why', () => {
    expect(dns1123LabelProblem('')).toBe('must not be empty');
    expect(dns1123LabelProblem('a'.repeat(64))).toMatch(/at most 63 characters \(has 64\)/);
    expect(dns1123LabelProblem('A')).toMatch(/DNS-1123 label/);
  });
});

describe('DNS-1123 subdomains', () => {
  it.each(['a', 'vmi.example', 'a-b.c-d.e', `${'a'.repeat(100)}.b`, 'a'.repeat(253)])('accepts %j', (name) => {
    expect(isDns1123Subdomain(name)).toBe(true);
  });

  it.each(['', '.', '..', 'a..b', '.a', 'a.', 'A.b', 'a_b', '../x', 'a/b', 'a'.repeat(254)])('refuses %j', (name) => {
    expect(isDns1123Subdomain(name)).toBe(false);
  });

  it('says why', () => {
    expect(dns1123SubdomainProblem('a'.repeat(254))).toMatch(/at most 253 characters \(has 254\)/);
    expect(dns1123SubdomainProblem('a..b')).toMatch(/DNS-1123 subdomain/);
  });
});

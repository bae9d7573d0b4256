// Name-based UUIDs (RFC 4122 version 5, SHA-1), the way KubeVirt derives stable firmware UUIDs.
import { createHash } from 'node:crypto';

/** KubeVirt's namespace for firmware UUIDs derived from a VM name. */
export const FIRMWARE_UUID_NAMESPACE = '6a1a24a1-4061-4607-8bf4-a3963d0c5895';

// Conversions of the same VMI repeat the same names: keep recent answers (SHA-1 dominates otherwise).
// Keyed by namespace, then name: a joined key would be a new string to flatten and hash on every call.
const cache = new Map<string, Map<string, string>>();
const CACHE_LIMIT = 1024;

export function uuidV5(namespace: string, name: string): string {
  let names = cache.get(namespace);
  if (names === undefined) {
    if (cache.size >= CACHE_LIMIT) cache.clear();
    names = new Map();
    cache.set(namespace, names);
  }
  const hit = names.get(name);
  if (hit !== undefined) return hit;
  const value = compute(namespace, name);
  if (names.size >= CACHE_LIMIT) names.clear();
  names.set(name, value);
  return value;
}

function compute(namespace: string, name: string): string {
  const ns = Buffer.from(namespace.replace(/-/g, ''), 'hex');
  const hash = createHash('sha1').update(ns).update(name, 'utf8').digest();
  hash[6] = ((hash[6] as number) & 0x0f) | 0x50;
  hash[8] = ((hash[8] as number) & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

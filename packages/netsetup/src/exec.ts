// The only place that runs ip / nft / sysctl: always inside the pod namespace (`ip -n NS`, `ip netns exec NS`).
import { existsSync } from 'node:fs';
import { execa } from 'execa';
import { CommandError, NamespaceNotFoundError } from './errors.js';

const NETNS_DIR = '/run/netns';

/** Names `ip netns` can hold: no path separators, nothing that would escape /run/netns. */
export function checkNetns(netns: string): void {
  if (!/^[A-Za-z0-9_.-]+$/.test(netns) || netns === '.' || netns === '..' || !existsSync(`${NETNS_DIR}/${netns}`)) {
    throw new NamespaceNotFoundError(netns);
  }
}

async function run(file: string, args: string[], input?: string): Promise<string> {
  const result = await execa(file, args, { reject: false, input, stripFinalNewline: false });
  if (result.exitCode !== 0 || result.failed) {
    const stderr =
      typeof result.stderr === 'string' && result.stderr ? result.stderr : String(result.shortMessage ?? '');
    throw new CommandError([file, ...args].join(' '), result.exitCode, stderr);
  }
  return typeof result.stdout === 'string' ? result.stdout : '';
}

/** `ip -n NS -j ARGS` parsed; `ip` prints nothing at all for an empty answer, which means []. */
export async function ipJson<T>(netns: string, args: string[]): Promise<T[]> {
  const out = await run('ip', ['-n', netns, '-j', ...args]);
  return out.trim() === '' ? [] : (JSON.parse(out) as T[]);
}

/** All link changes of one call in a single `ip -batch` process (stops at the first failing line). */
export async function ipBatch(netns: string, lines: readonly string[]): Promise<void> {
  if (lines.length > 0) await run('ip', ['-n', netns, '-batch', '-'], `${lines.join('\n')}\n`);
}

/** One atomic nft transaction: the whole file is committed or nothing is. */
export async function nftApply(netns: string, script: string): Promise<void> {
  await run('ip', ['netns', 'exec', netns, 'nft', '-f', '-'], script);
}

export async function nftListRuleset(netns: string): Promise<string> {
  return run('ip', ['netns', 'exec', netns, 'nft', 'list', 'ruleset']);
}

/** Values of slash-form keys (net/ipv4/ip_forward), read inside the namespace: /proc/sys/net is per-namespace. */
export async function sysctlRead(netns: string, keys: readonly string[]): Promise<Map<string, string>> {
  if (keys.length === 0) return new Map();
  const out = await run('ip', ['netns', 'exec', netns, 'sysctl', '-n', ...keys]);
  const values = out.split('\n');
  return new Map(keys.map((k, i) => [k, (values[i] ?? '').trim()]));
}

export async function sysctlWrite(netns: string, values: ReadonlyMap<string, string>): Promise<void> {
  if (values.size === 0) return;
  await run('ip', ['netns', 'exec', netns, 'sysctl', '-q', '-w', ...[...values].map(([k, v]) => `${k}=${v}`)]);
}

/** Deletes each link that exists; a missing one is not an error (rollback and teardown use this). */
export async function deleteLinks(netns: string, names: readonly string[]): Promise<void> {
  for (const name of names) {
    try {
      await run('ip', ['-n', netns, 'link', 'del', name]);
    } catch (err) {
      if (!(err instanceof CommandError && /Cannot find device/.test(err.stderr))) throw err;
    }
  }
}

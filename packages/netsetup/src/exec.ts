// The only place that runs ip / nft / sysctl: always inside the pod namespace (`ip -n NS`, `nsenter --net`).
// Commands run through node:child_process directly: execa and its dependencies are ~130 ES modules, whose
// loading was most of virt-netsetup's start-up (docs/performance.md).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { CommandError, NamespaceNotFoundError } from './errors.js';

const NETNS_DIR = '/run/netns';

/** Names `ip netns` can hold: no path separators, nothing that would escape /run/netns. */
export function checkNetns(netns: string): void {
  if (!/^[A-Za-z0-9_.-]+$/.test(netns) || netns === '.' || netns === '..' || !existsSync(`${NETNS_DIR}/${netns}`)) {
    throw new NamespaceNotFoundError(netns);
  }
}

/**
 * Runs a command to its end; resolves to its stdout when it exits 0. Anything else (a non-zero exit, a signal,
 * a command that cannot start) is a CommandError carrying the command's stderr, or the reason it did not run.
 */
export function run(file: string, args: readonly string[], input?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: 'pipe' });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let spawnError: Error | undefined;
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.once('error', (err) => (spawnError ??= err));
    child.once('close', (code, signal) => {
      const out = Buffer.concat(stdout).toString('utf8');
      if (code === 0 && !spawnError) return resolve(out);
      const err = Buffer.concat(stderr).toString('utf8');
      const why = err || (spawnError ? spawnError.message : signal ? `killed by ${signal}` : '');
      // A command that never started has no exit status (Node reports the negative errno as its code).
      const status = spawnError || code === null ? undefined : code;
      reject(new CommandError([file, ...args].join(' '), status, why));
    });
    // A command that exits before reading all of its input (it failed early) closes the pipe: its exit
    // status tells what happened, the EPIPE adds nothing. Without input, stdin is closed at once (EOF).
    child.stdin.on('error', () => undefined);
    child.stdin.end(input);
  });
}

/** `ip -n NS -j ARGS` parsed; `ip` prints nothing at all for an empty answer, which means []. */
export async function ipJson<T>(netns: string, args: string[]): Promise<T[]> {
  const out = await run('ip', ['-n', netns, '-j', ...args]);
  return out.trim() === '' ? [] : (JSON.parse(out) as T[]);
}

/**
 * Several `ip -j` queries in one process (`ip -batch`): one parsed answer per line, in order. The batch stops at
 * the first failing line, which fails the call (the caller sees that command's stderr).
 */
export async function ipJsonBatch(netns: string, lines: readonly string[]): Promise<unknown[][]> {
  const out = (await run('ip', ['-n', netns, '-j', '-batch', '-'], `${lines.join('\n')}\n`)).split('\n');
  return lines.map((_, i) => (out[i]?.trim() ? (JSON.parse(out[i]!) as unknown[]) : []));
}

/** All link changes of one call in a single `ip -batch` process (stops at the first failing line). */
export async function ipBatch(netns: string, lines: readonly string[]): Promise<void> {
  if (lines.length > 0) await run('ip', ['-n', netns, '-batch', '-'], `${lines.join('\n')}\n`);
}

/**
 * argv prefix that runs a command in the pod's network namespace and nothing else. nft speaks netlink and sysctl
 * writes /proc/sys/net, which the kernel resolves to the opener's network namespace, so joining that namespace is all
 * they need. `ip netns exec` also unshares the mount namespace and mounts a fresh /sys on every call, which only
 * tools that read /sys/class/net need.
 */
function inNetns(netns: string, command: string, args: readonly string[]): [string, string[]] {
  return ['nsenter', [`--net=${NETNS_DIR}/${netns}`, '--', command, ...args]];
}

/** One atomic nft transaction: the whole file is committed or nothing is. */
export async function nftApply(netns: string, script: string): Promise<void> {
  await run(...inNetns(netns, 'nft', ['-f', '-']), script);
}

export async function nftListRuleset(netns: string): Promise<string> {
  return run(...inNetns(netns, 'nft', ['list', 'ruleset']));
}

/** Values of slash-form keys (net/ipv4/ip_forward), read inside the namespace: /proc/sys/net is per-namespace. */
export async function sysctlRead(netns: string, keys: readonly string[]): Promise<Map<string, string>> {
  if (keys.length === 0) return new Map();
  const out = await run(...inNetns(netns, 'sysctl', ['-n', ...keys]));
  const values = out.split('\n');
  return new Map(keys.map((k, i) => [k, (values[i] ?? '').trim()]));
}

export async function sysctlWrite(netns: string, values: ReadonlyMap<string, string>): Promise<void> {
  if (values.size === 0) return;
  await run(...inNetns(netns, 'sysctl', ['-q', '-w', ...[...values].map(([k, v]) => `${k}=${v}`)]));
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

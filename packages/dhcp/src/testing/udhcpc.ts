// Runs busybox udhcpc in the guest netns and returns the environment its script saw on "bound" (or nothing).
import { mkdtemp, readFile, rm, writeFile, chmod } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PodNetwork } from './pod-network.js';

export interface UdhcpcResult {
  exitCode: number;
  output: string;
  /** Variables of the "bound" call, absent when no lease was obtained. */
  bound: Record<string, string> | undefined;
  /** Script events in order (deconfig, bound, nak, leasefail, ...). */
  events: string[];
}

export async function runUdhcpc(net: PodNetwork, extra: string[] = []): Promise<UdhcpcResult> {
  const dir = await mkdtemp(join(tmpdir(), 'vlt-dhcp-udhcpc-'));
  try {
    const script = join(dir, 'script.sh');
    await writeFile(
      script,
      `#!/bin/sh\necho "$1" >> ${dir}/events\n[ "$1" = bound ] && env > ${dir}/bound.env\nexit 0\n`,
    );
    await chmod(script, 0o755);
    const args = ['udhcpc', '-i', 'eth0', '-n', '-q', '-t', '3', '-T', '1', '-A', '1'];
    for (const o of ['mtu', 'staticroutes', 'search', 'hostname', 'domain']) args.push('-O', o);
    const r = await net.exec(net.guest, 'busybox', [...args, '-s', script, ...extra]);
    const events = (await readFile(join(dir, 'events'), 'utf8').catch(() => '')).split('\n').filter(Boolean);
    const env = await readFile(join(dir, 'bound.env'), 'utf8').catch(() => undefined);
    const bound = env
      ? Object.fromEntries(
          env
            .split('\n')
            .filter((l) => l.includes('='))
            .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
        )
      : undefined;
    return { exitCode: r.exitCode, output: r.stdout + r.stderr, bound, events };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

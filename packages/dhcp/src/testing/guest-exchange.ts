// Crafted client traffic from the guest netns: send datagrams, collect the replies.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PodNetwork } from './pod-network.js';

const CLIENT = fileURLToPath(new URL('./guest-client.mjs', import.meta.url));

export interface Send {
  data: Buffer;
  address: string;
  port: number;
}

export async function exchange(
  net: PodNetwork,
  sends: Send[],
  opts: { family?: 4 | 6; expect: number; windowMs?: number },
): Promise<Buffer[]> {
  const job = {
    family: opts.family ?? 4,
    sends: sends.map((s) => ({ hex: s.data.toString('hex'), address: s.address, port: s.port })),
    expect: opts.expect,
    windowMs: opts.windowMs ?? 5000,
  };
  const dir = await mkdtemp(join(tmpdir(), 'vlt-dhcp-job-'));
  const file = join(dir, 'job.json');
  await writeFile(file, JSON.stringify(job));
  const r = await net.exec(net.guest, process.execPath, [CLIENT, file]).finally(() => rm(dir, { recursive: true }));
  if (r.exitCode !== 0) throw new Error(`guest client failed (${r.exitCode}): ${r.stderr}`);
  const out = JSON.parse(r.stdout.trim().split('\n').pop() ?? '{}') as { replies: string[] };
  return out.replies.map((h) => Buffer.from(h, 'hex'));
}

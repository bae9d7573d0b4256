// ephemeral-disk: 100 qcow2 write layers made by createWriteLayer against 100 plain `qemu-img create -f qcow2
// -b BASE -F raw` calls spawned the same way from Node, in one run, interleaved in blocks of 10 so that both
// sides see the same machine load. Our layer also has to learn the backing format (`qemu-img info` under
// prlimit); the first row shows it with the per-file facts cache (the launcher's case: several volumes, few
// backings, one process), the second with the cache cleared before every call (info + create each time).
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { clearImageFactsCache, createWriteLayer } from '@virt-launcher/ephemeral-disk';

const run = promisify(execFile);
const COUNT = 100;
const BLOCK = 10;

async function peerCreate(backing: string, out: string): Promise<void> {
  await run('qemu-img', ['create', '-q', '-f', 'qcow2', '-b', backing, '-F', 'raw', out]);
}

async function timed(fn: () => Promise<void>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

interface Pair {
  ours: number;
  peer: number;
}

async function measure(label: string, dir: string, backing: string, coldCache: boolean): Promise<Pair> {
  const total: Pair = { ours: 0, peer: 0 };
  clearImageFactsCache();
  for (let done = 0; done < COUNT; done += BLOCK) {
    total.ours += await timed(async () => {
      for (let i = done; i < done + BLOCK; i++) {
        if (coldCache) clearImageFactsCache();
        await createWriteLayer({ ephemeralDir: join(dir, `${label}-ours`), volume: `vol-${i}`, backingFile: backing });
      }
    });
    total.peer += await timed(async () => {
      for (let i = done; i < done + BLOCK; i++) await peerCreate(backing, join(dir, `${label}-peer-${i}.qcow2`));
    });
    process.stderr.write(
      `${label}: ${done + BLOCK}/${COUNT} ours ${total.ours.toFixed(0)} ms, peer ${total.peer.toFixed(0)} ms\n`,
    );
  }
  return total;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'vlt-bench-ephemeral-disk-'));
  try {
    const backing = join(dir, 'base.raw');
    await run('qemu-img', ['create', '-q', '-f', 'raw', backing, '1G']);
    // Warm-up: page cache, binaries, the dynamic loader's caches, for both sides.
    for (let i = 0; i < 3; i++) {
      await createWriteLayer({ ephemeralDir: join(dir, 'warm'), volume: `w-${i}`, backingFile: backing });
      await peerCreate(backing, join(dir, `warm-${i}.qcow2`));
    }
    const cached = await measure('cached', dir, backing, false);
    const cold = await measure('cold', dir, backing, true);
    const row = (name: string, pair: Pair, note: string, goal: string) => ({
      name,
      ours: Math.round(pair.ours),
      peer: Math.round(pair.peer),
      unit: 'ms',
      ratio: Number((pair.ours / pair.peer).toFixed(3)),
      goal,
      peerName: '100x qemu-img create -b -F raw',
      note,
    });
    const results = [
      row(
        '100 write layers (backing facts cached per file)',
        cached,
        'one qemu-img info for the first layer only',
        '<= 1.1',
      ),
      row(
        '100 write layers (cache cleared: info + create each)',
        cold,
        'worst case, one inspection per layer (the goal applies to the row above)',
        'report only',
      ),
    ];
    process.stdout.write(`${JSON.stringify({ suite: 'ephemeral-disk', results })}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();

// Measures the volumes blockSize.matchVolume asks for (block-size.ts says which and where). A block device's
// sector sizes come from util-linux's `blockdev --getss --getpbsz`, which asks the kernel with the same ioctls
// KubeVirt's launcher uses (BLKSSZGET, BLKPBSZGET) without a native addon; its discard granularity from
// /sys/dev/block/<major>:<minor>/queue, absent meaning 0, as in KubeVirt. A file is measured with statfs on the
// file, or on its directory when the file is not made yet (it will be made on that filesystem: a filesystem
// PVC's disk.img is created later, in the pre-start storage step).
import { execFile } from 'node:child_process';
import { readFile, stat, statfs } from 'node:fs/promises';
import { dirname } from 'node:path';
import { promisify } from 'node:util';
import { InvalidRequestError } from '../../errors.js';
import type { LauncherPaths } from '../../paths.js';
import type { VmiView } from '../../vmi.js';
import { deviceBlockSizes, fileBlockSizes, measureTargets } from './block-size.js';
import type { MeasureTarget, VolumeBlockSizes } from './block-size.js';

const run = promisify(execFile);

/** blockdev answers at once; a device that hangs it must not hang the sync. */
const BLOCKDEV_TIMEOUT_MS = 10_000;

function failure(target: MeasureTarget, reason: string): InvalidRequestError {
  return new InvalidRequestError(
    `${target.field}: cannot measure the block size of volume ${target.volume} at ${target.path}: ${reason}`,
    target.field,
  );
}

const reasonOf = (err: unknown): string =>
  (err as NodeJS.ErrnoException).code ?? (err as { stderr?: string }).stderr?.trim() ?? String(err);

/** Linux's dev_t split into major and minor (the glibc encoding: 12+20 bits of major, 8+24 of minor). */
export function deviceNumbers(rdev: bigint): { major: bigint; minor: bigint } {
  return {
    major: ((rdev >> 8n) & 0xfffn) | ((rdev >> 32n) & ~0xfffn),
    minor: (rdev & 0xffn) | ((rdev >> 12n) & ~0xffn),
  };
}

async function discardGranularity(rdev: bigint, sysRoot: string): Promise<number> {
  const { major, minor } = deviceNumbers(rdev);
  const path = `${sysRoot}/dev/block/${major}:${minor}/queue/discard_granularity`;
  const text = await readFile(path, 'utf8').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return '0';
    throw err;
  });
  const value = Number(text.trim());
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new Error(`${path} holds ${JSON.stringify(text.trim())}, not a size`);
  }
  return value;
}

async function measureDevice(target: MeasureTarget, sysRoot: string): Promise<VolumeBlockSizes> {
  const info = await stat(target.path, { bigint: true }).catch((err: unknown) => {
    throw failure(target, reasonOf(err));
  });
  if (!info.isBlockDevice()) throw failure(target, 'not a block device');
  const answer = await run('blockdev', ['--getss', '--getpbsz', target.path], { timeout: BLOCKDEV_TIMEOUT_MS }).catch(
    (err: unknown) => {
      throw failure(target, `blockdev: ${reasonOf(err)}`);
    },
  );
  const numbers = answer.stdout.trim().split(/\s+/);
  if (numbers.length !== 2 || !numbers.every((n) => /^\d+$/.test(n))) {
    throw failure(target, `blockdev answered ${JSON.stringify(answer.stdout.trim())}`);
  }
  const granularity = await discardGranularity(info.rdev, sysRoot).catch((err: unknown) => {
    throw failure(target, `discard granularity: ${(err as Error).message}`);
  });
  return deviceBlockSizes(target, Number(numbers[0]), Number(numbers[1]), granularity);
}

async function measureFile(target: MeasureTarget): Promise<VolumeBlockSizes> {
  const found = await statfs(target.path).catch(async (err: NodeJS.ErrnoException) => {
    if (err.code !== 'ENOENT') throw failure(target, reasonOf(err));
    return statfs(dirname(target.path)).catch((dirErr: unknown) => {
      throw failure(target, `neither it nor its directory exists (${reasonOf(dirErr)})`);
    });
  });
  if (!(found.bsize > 0)) throw failure(target, `its filesystem reports a block size of ${found.bsize}`);
  return fileBlockSizes(found.bsize);
}

/** The measured sizes of every volume a matchVolume disk uses, by volume name (empty when none asks). */
export async function probeVolumeBlockSizes(
  vmi: VmiView,
  blockVolumes: Record<string, boolean>,
  paths: LauncherPaths,
  sysRoot = '/sys',
): Promise<Record<string, VolumeBlockSizes>> {
  const sizes: Record<string, VolumeBlockSizes> = {};
  for (const target of measureTargets(vmi, blockVolumes, paths)) {
    sizes[target.volume] = target.kind === 'block' ? await measureDevice(target, sysRoot) : await measureFile(target);
  }
  return sizes;
}

// Migration targets get a zero-filled placeholder of the source ISO's exact size in place of a real ISO; the
// content arrives with the storage migration. Same temp + rename publication as a real ISO.
import { unlink } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { createExclusive, fdPath, pinDirectory, refuseNonRegular } from './beneath.js';
import { InvalidRequestError } from './errors.js';
import { publishReplace, removeStaleTemps, tempPathFor } from './atomic.js';
import { setQemuOwnership } from './ownership.js';

const CHUNK = 1 << 20;

export async function createEmptyIso(path: string, size: bigint): Promise<void> {
  if (size <= 0n) throw new InvalidRequestError('size', `${size} is not a positive ISO size`);
  const dir = await pinDirectory(dirname(path), [], 0o750);
  const name = basename(path);
  try {
    // A planted link or FIFO at the target is refused rather than replaced (see buildIso).
    await refuseNonRegular(dir, name);
    await removeStaleTemps(dir.at(name));
    const temp = basename(tempPathFor(name));
    const file = await createExclusive(dir, temp, 0o644);
    try {
      // Written, not truncated: the placeholder must be allocated like the ISO it stands for.
      const zeros = Buffer.alloc(CHUNK);
      for (let left = size; left > 0n; left -= BigInt(CHUNK)) {
        const length = left < BigInt(CHUNK) ? Number(left) : CHUNK;
        await file.write(zeros, 0, length);
      }
      await setQemuOwnership(fdPath(file));
    } catch (error) {
      await unlink(dir.at(temp)).catch(() => undefined);
      throw error;
    } finally {
      await file.close();
    }
    await publishReplace(dir.at(temp), dir.at(name));
  } finally {
    await dir.close();
  }
}

// Migration targets get a zero-filled placeholder of the source ISO's exact size in place of a real ISO; the
// content arrives with the storage migration. Same temp + rename publication as a real ISO.
import { open, unlink } from 'node:fs/promises';
import { InvalidRequestError } from './errors.js';
import { publishReplace, removeStaleTemps, tempPathFor } from './atomic.js';
import { setQemuOwnership } from './ownership.js';

const CHUNK = 1 << 20;

export async function createEmptyIso(path: string, size: bigint): Promise<void> {
  if (size <= 0n) throw new InvalidRequestError('size', `${size} is not a positive ISO size`);
  await removeStaleTemps(path);
  const temp = tempPathFor(path);
  try {
    // Written, not truncated: the placeholder must be allocated like the ISO it stands for.
    const file = await open(temp, 'wx', 0o644);
    try {
      const zeros = Buffer.alloc(CHUNK);
      for (let left = size; left > 0n; left -= BigInt(CHUNK)) {
        const length = left < BigInt(CHUNK) ? Number(left) : CHUNK;
        await file.write(zeros, 0, length);
      }
    } finally {
      await file.close();
    }
    await setQemuOwnership(temp);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
  await publishReplace(temp, path);
}

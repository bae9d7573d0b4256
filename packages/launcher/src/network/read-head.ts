// Pod files phase 2 reads are written by parties it does not trust (the image, the node side): it reads only
// their first bytes, so no file can grow the launcher.
import { open } from 'node:fs/promises';

/** The first `max` bytes of `path` as UTF-8 (all of a smaller file). */
export async function readHead(path: string, max: number): Promise<string> {
  const file = await open(path, 'r');
  try {
    const buf = Buffer.alloc(max);
    const { bytesRead } = await file.read(buf, 0, max, 0);
    return buf.subarray(0, bytesRead).toString('utf8');
  } finally {
    await file.close();
  }
}

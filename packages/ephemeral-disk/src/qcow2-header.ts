// The references a qcow2 header makes to other files, read from the bytes themselves before any tool opens
// the image: `qemu-img info` would already open an external data file, and a reference to a FIFO or device
// could hang or disturb it. Fields are big-endian, at the offsets of qcow2 versions 2 and 3.
import type { FileHandle } from 'node:fs/promises';

const MAGIC = 0x514649fb; // "QFI\xfb"
const V2_HEADER_LENGTH = 72;
const INCOMPATIBLE_DATA_FILE = 1n << 2n;
const EXTENSION_DATA_FILE = 0x44415441; // "DATA": external data file name
const EXTENSION_END = 0;
/** Headers and their extensions live in the first cluster; 2 MiB is qcow2's largest cluster size. */
const MAX_HEADER_BYTES = 2 * 1024 * 1024;

export interface Qcow2References {
  /** The backing file name stored in the header, when there is one. */
  backingFile: string | undefined;
  /** The external data file name (header extension), or "" when the feature bit is set without a name. */
  dataFile: string | undefined;
}

async function readAt(handle: FileHandle, offset: number, length: number): Promise<Buffer> {
  const buffer = Buffer.alloc(length);
  const { bytesRead } = await handle.read(buffer, 0, length, offset);
  return buffer.subarray(0, bytesRead);
}

/** undefined when the file is not a qcow2 (no magic); else the references its header holds. */
export async function readQcow2References(handle: FileHandle): Promise<Qcow2References | undefined> {
  const head = await readAt(handle, 0, 104);
  if (head.length < V2_HEADER_LENGTH || head.readUInt32BE(0) !== MAGIC) return undefined;
  const version = head.readUInt32BE(4);
  const backingOffset = head.readBigUInt64BE(8);
  const backingSize = head.readUInt32BE(16);
  let backingFile: string | undefined;
  if (backingOffset !== 0n && backingSize > 0) {
    // A name that cannot be read in full still counts as a reference: QEMU would try to open something.
    const length = Math.min(backingSize, 1023);
    const bytes = backingOffset < BigInt(MAX_HEADER_BYTES) ? await readAt(handle, Number(backingOffset), length) : null;
    backingFile = bytes === null ? '(unreadable backing file name)' : bytes.toString('latin1');
  }
  if (version < 3 || head.length < 104) return { backingFile, dataFile: undefined };
  const incompatible = head.readBigUInt64BE(72);
  const headerLength = head.readUInt32BE(100);
  let dataFile = (incompatible & INCOMPATIBLE_DATA_FILE) !== 0n ? '' : undefined;
  let offset = headerLength;
  // Extensions follow the header: type, length, data padded to 8 bytes, until the end marker.
  while (offset + 8 <= MAX_HEADER_BYTES) {
    const entry = await readAt(handle, offset, 8);
    if (entry.length < 8) break;
    const type = entry.readUInt32BE(0);
    const length = entry.readUInt32BE(4);
    if (type === EXTENSION_END) break;
    if (type === EXTENSION_DATA_FILE) {
      dataFile = (await readAt(handle, offset + 8, Math.min(length, 4096))).toString('latin1');
    }
    offset += 8 + Math.ceil(length / 8) * 8;
  }
  return { backingFile, dataFile };
}

// Cache and I/O modes of the domain's disks, chosen once their files exist (after the storage steps, before
// define), as KubeVirt's launcher does: a disk without a cache mode gets cache="none" when the file (and its
// backing file) can be opened with O_DIRECT, else "writethrough"; a disk that asks for "none" where O_DIRECT is
// unsupported is refused. With cache="none" and no I/O mode, a block device or a fully allocated image gets
// io="native" (QEMU's native AIO needs O_DIRECT). The converter cannot know this: it never touches files.
import { constants } from 'node:fs';
import { open, unlink } from 'node:fs/promises';
import type { EphemeralDiskFace } from '../../../adapters/ephemeral-disk.js';
import { InvalidRequestError } from '../../../errors.js';
import { log } from '../../../log.js';

/**
 * Whether `path` can be opened with O_DIRECT: EINVAL means the filesystem refuses it (then a plain open must
 * work, else the error is real). A missing file is probed by creating it and removing it afterwards.
 */
export async function supportsDirectIo(path: string): Promise<boolean> {
  let created = false;
  const attempt = async (direct: boolean) => {
    // An existing file is opened through links, as KubeVirt's directIOChecker opens it: with --image-volume the
    // container disk is a link into the image (domain/sync/image-volumes.ts). Read-only and non-blocking, so a
    // FIFO at the end of a link cannot hang the probe; a missing file is made only where no link is (O_EXCL).
    const flags = constants.O_RDONLY | constants.O_NONBLOCK | (direct ? constants.O_DIRECT : 0);
    try {
      return await open(path, flags);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      created = true;
      return open(path, flags | constants.O_NOFOLLOW | constants.O_CREAT | constants.O_EXCL, 0o600);
    }
  };
  try {
    const handle = await attempt(true).catch(async (error: unknown) => {
      if ((error as NodeJS.ErrnoException).code !== 'EINVAL') throw error;
      await (await attempt(false)).close();
      return undefined;
    });
    await handle?.close();
    return handle !== undefined;
  } finally {
    if (created) await unlink(path).catch(() => undefined);
  }
}

const attr = (tag: string, name: string): string | undefined =>
  new RegExp(`\\s${name}=["']([^"']*)["']`).exec(tag)?.[1];

/** XML attribute values as the converter escapes them, back to the path they name. */
const unescape = (v: string): string =>
  v.replace(
    /&(lt|gt|quot|apos|amp);/g,
    (_m, e: string) => ({ lt: '<', gt: '>', quot: '"', apos: "'", amp: '&' })[e] ?? '',
  );

export interface CacheModeDeps {
  eph: EphemeralDiskFace;
  /** A pod path as this launcher reaches it (under --run-root). */
  local: (podPath: string) => string;
}

async function chooseModes(disk: string, deps: CacheModeDeps): Promise<{ cache?: string; io?: string }> {
  const driver = /<driver\b[^>]*>/.exec(disk)?.[0] ?? '';
  const source = /<source\b[^>]*>/.exec(disk)?.[0] ?? '';
  const block = /^<disk\b[^>]*\stype=["']block["']/.test(disk);
  const path = attr(source, block ? 'dev' : 'file');
  if (!driver || path === undefined) return {};
  const cache = attr(driver, 'cache');
  if (cache !== undefined && cache !== 'none') return {};
  const backing = /<backingStore\b[\s\S]*?<source\b[^>]*\sfile=["']([^"']*)["']/.exec(disk)?.[1];
  const paths = [path, ...(backing !== undefined ? [backing] : [])].map(unescape);
  let direct = true;
  for (const p of paths) direct = direct && (await supportsDirectIo(deps.local(p)));
  if (cache === 'none' && !direct) {
    throw new InvalidRequestError(
      `disk cache mode "none" needs direct I/O, which the file system of ${unescape(path)} does not support`,
      'spec.domain.devices.disks.cache',
    );
  }
  const chosen = direct ? 'none' : 'writethrough';
  let io: string | undefined;
  if (chosen === 'none' && attr(driver, 'io') === undefined) {
    // A fully allocated image (actual size at least its virtual size) behaves like a block device for AIO.
    const allocated =
      block ||
      (await deps.eph.inspectImage(deps.local(unescape(path))).then(
        (f) => BigInt(f.actualSize ?? 0) >= BigInt(f.virtualSize),
        () => false,
      ));
    if (allocated) io = 'native';
  }
  log.info(`Driver cache mode for ${unescape(path)} set to ${chosen}`);
  return { ...(cache === undefined ? { cache: chosen } : {}), ...(io ? { io } : {}) };
}

/** The domain XML with cache (and io) modes set on every file or block disk that did not choose them. */
export async function applyDiskCacheModes(domainXml: string, deps: CacheModeDeps): Promise<string> {
  const disks = [...domainXml.matchAll(/<disk\b[\s\S]*?<\/disk>/g)];
  let out = '';
  let last = 0;
  for (const match of disks) {
    const disk = match[0];
    const modes = await chooseModes(disk, deps);
    const extra = Object.entries(modes)
      .map(([k, v]) => ` ${k}="${v}"`)
      .join('');
    out += domainXml.slice(last, match.index) + disk.replace(/<driver\b/, `<driver${extra}`);
    last = match.index + disk.length;
  }
  return out + domainXml.slice(last);
}

// Disk cache/io modes chosen from the files themselves, on real filesystems: the O_DIRECT probe agrees with
// coreutils' dd (oflag=direct) as a peer, and the domain XML gets cache/io set only where the VMI left them open.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadEphemeralDisk } from './adapters/ephemeral-disk.js';
import { applyDiskCacheModes, supportsDirectIo } from './domain/sync/storage/disk-cache.js';
import { InvalidRequestError } from './errors.js';

/** The peer: dd can write one 4 KiB block to the file with O_DIRECT. */
function ddSaysDirect(path: string): boolean {
  const r = spawnSync('dd', ['if=/dev/zero', `of=${path}`, 'bs=4096', 'count=1', 'oflag=direct', 'conv=notrunc']);
  return r.status === 0;
}

const dirs: string[] = [];
beforeEach(async () => {
  dirs.push(await mkdtemp(join(tmpdir(), 'vlt-launcher-cache-')));
  // /dev/shm is tmpfs: a second, different filesystem to compare with the peer.
  dirs.push(await mkdtemp('/dev/shm/vlt-launcher-cache-'));
});
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

describe('the O_DIRECT probe', () => {
  it('answers as dd does for an existing file on each filesystem, and leaves a missing file missing', async () => {
    for (const dir of dirs) {
      const file = join(dir, 'disk.img');
      execFileSync('qemu-img', ['create', '-q', '-f', 'raw', file, '1M']);
      expect(await supportsDirectIo(file), dir).toBe(ddSaysDirect(file));
      const missing = join(dir, 'not-yet.img');
      expect(await supportsDirectIo(missing), dir).toBe(ddSaysDirect(file));
      await expect(stat(missing)).rejects.toThrow(/ENOENT/);
    }
  });
});

describe('applyDiskCacheModes', () => {
  const disk = (path: string, driver = '') =>
    `<disk type="file" device="disk"><driver name="qemu" type="raw"${driver}/><source file="${path}"/><target dev="vda" bus="virtio"/></disk>`;

  it('sets cache from the probe, io="native" only for a fully allocated image, and keeps chosen modes', async () => {
    const eph = await loadEphemeralDisk();
    const dir = dirs[0] ?? '';
    const sparse = join(dir, 'sparse.img');
    const full = join(dir, 'full.img');
    execFileSync('qemu-img', ['create', '-q', '-f', 'raw', sparse, '4M']);
    execFileSync('qemu-img', ['create', '-q', '-f', 'raw', '-o', 'preallocation=full', full, '4M']);
    const direct = ddSaysDirect(full);
    const xml = `<domain><devices>${disk(sparse)}${disk(full)}${disk(full, ' cache="writeback"')}</devices></domain>`;
    const out = await applyDiskCacheModes(xml, { eph, local: (p) => p });
    const drivers = [...out.matchAll(/<driver[^>]*>/g)].map((m) => m[0]);
    if (direct) {
      expect(drivers[0]).toBe('<driver cache="none" name="qemu" type="raw"/>');
      expect(drivers[1]).toBe('<driver cache="none" io="native" name="qemu" type="raw"/>');
    } else {
      expect(drivers[0]).toBe('<driver cache="writethrough" name="qemu" type="raw"/>');
      expect(drivers[1]).toBe('<driver cache="writethrough" name="qemu" type="raw"/>');
    }
    expect(drivers[2]).toBe('<driver name="qemu" type="raw" cache="writeback"/>');
  });

  it('refuses cache="none" where the filesystem has no O_DIRECT, and accepts it where it has', async () => {
    const eph = await loadEphemeralDisk();
    for (const dir of dirs) {
      const file = join(dir, 'd.img');
      execFileSync('qemu-img', ['create', '-q', '-f', 'raw', file, '1M']);
      const xml = disk(file, ' cache="none"');
      const result = applyDiskCacheModes(xml, { eph, local: (p) => p });
      if (ddSaysDirect(file)) await expect(result).resolves.toContain('cache="none"');
      else await expect(result).rejects.toBeInstanceOf(InvalidRequestError);
    }
  });

  it('on a filesystem without O_DIRECT (procfs, as dd also finds): writethrough, and cache="none" is refused', async () => {
    const eph = await loadEphemeralDisk();
    const path = '/proc/version';
    const dd = spawnSync('dd', [`if=${path}`, 'of=/dev/null', 'bs=4096', 'count=1', 'iflag=direct']);
    expect(dd.status).not.toBe(0);
    expect(await supportsDirectIo(path)).toBe(false);
    const out = await applyDiskCacheModes(disk(path), { eph, local: (p) => p });
    expect(out).toContain('<driver cache="writethrough" name="qemu" type="raw"/>');
    const refused = await applyDiskCacheModes(disk(path, ' cache="none"'), { eph, local: (p) => p }).catch(
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(InvalidRequestError);
    expect((refused as Error).message).toContain('/proc/version');
  });
});

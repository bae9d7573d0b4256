// Unpacks an OCI image archive (as `buildah push oci-archive:` writes it) into a root file system directory:
// index.json → manifest → layers, applied in order, honouring whiteouts.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export class OciArchiveError extends Error {
  constructor(
    readonly archive: string,
    reason: string,
  ) {
    super(`${archive}: ${reason}`);
    this.name = 'OciArchiveError';
  }
}

interface Descriptor {
  mediaType: string;
  digest: string;
  size: number;
}

const blobPath = (layout: string, digest: string): string => {
  const [algo, hex] = digest.split(':');
  if (!algo || !hex || !/^[a-f0-9]+$/.test(hex)) throw new Error(`bad digest ${digest}`);
  return path.join(layout, 'blobs', algo, hex);
};

export interface UnpackedImage {
  rootfs: string;
  config: { config?: { Entrypoint?: string[]; Env?: string[]; User?: string } };
  layers: number;
}

export function unpackOciArchive(archive: string, workDir: string): UnpackedImage {
  const layout = path.join(workDir, 'layout');
  const rootfs = path.join(workDir, 'rootfs');
  fs.mkdirSync(layout, { recursive: true });
  fs.mkdirSync(rootfs, { recursive: true });
  execFileSync('tar', ['-xf', archive, '-C', layout]);
  const index = JSON.parse(fs.readFileSync(path.join(layout, 'index.json'), 'utf8')) as { manifests?: Descriptor[] };
  const manifestDesc = index.manifests?.[0];
  if (!manifestDesc) throw new OciArchiveError(archive, 'index.json lists no manifest');
  const manifest = JSON.parse(fs.readFileSync(blobPath(layout, manifestDesc.digest), 'utf8')) as {
    config: Descriptor;
    layers: Descriptor[];
  };
  for (const layer of manifest.layers) {
    const file = blobPath(layout, layer.digest);
    const gz = layer.mediaType.endsWith('gzip');
    const listing = execFileSync('tar', [gz ? '-tzf' : '-tf', file], { maxBuffer: 1 << 28 })
      .toString()
      .split('\n');
    // Whiteouts: ".wh.<name>" deletes <name> from the lower layers; ".wh..wh..opq" empties the directory.
    for (const entry of listing.filter((e) => path.basename(e).startsWith('.wh.'))) {
      const dir = path.join(rootfs, path.dirname(entry));
      const base = path.basename(entry);
      if (base === '.wh..wh..opq') fs.rmSync(dir, { recursive: true, force: true });
      else fs.rmSync(path.join(dir, base.slice(4)), { recursive: true, force: true });
    }
    execFileSync('tar', [gz ? '-xzf' : '-xf', file, '-C', rootfs, '--exclude=.wh.*', '--no-same-owner']);
  }
  const config = JSON.parse(
    fs.readFileSync(blobPath(layout, manifest.config.digest), 'utf8'),
  ) as UnpackedImage['config'];
  return { rootfs, config, layers: manifest.layers.length };
}

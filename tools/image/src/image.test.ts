// Builds the image when no archive is there (or uses IMAGE_ARCHIVE), unpacks it and runs programs inside with chroot.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unpackOciArchive, type UnpackedImage } from './oci.js';

const here = path.dirname(fileURLToPath(import.meta.url));
let work: string;
let image: UnpackedImage;
let archive: string;

beforeAll(() => {
  archive = process.env.IMAGE_ARCHIVE ?? path.resolve(here, '../../../.cache/image/virt-launcher-ts.oci.tar');
  if (!process.env.IMAGE_ARCHIVE) {
    execFileSync('bash', [path.resolve(here, '../build.sh')], { stdio: ['ignore', 'ignore', 'inherit'] });
  }
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'vlt-image-'));
  image = unpackOciArchive(archive, work);
});

afterAll(() => {
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

const inImage = (cmd: string[]) =>
  spawnSync('chroot', [image.rootfs, ...cmd], { encoding: 'utf8', env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' } });

describe('launcher image', () => {
  it('has virt-launcher-monitor as its entrypoint', () => {
    expect(image.config.config?.Entrypoint).toEqual(['/usr/bin/virt-launcher-monitor']);
  });

  it("runs the monitor's --help inside the image", () => {
    const r = inImage(['/usr/bin/virt-launcher-monitor', '--help']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout + r.stderr).toMatch(/virt-launcher-monitor/);
    expect(r.stdout + r.stderr).toMatch(/--grace-period-seconds/);
  });

  it('holds the launcher, its libvirt binding and the daemons it starts', () => {
    const launcher = inImage(['/usr/bin/virt-launcher', '--help']);
    expect(launcher.status, launcher.stderr).toBe(0);
    const binding = inImage([
      '/usr/bin/node',
      '--input-type=module',
      '-e',
      "const l = await import('/opt/virt-launcher/node_modules/@virt-launcher/libvirt/dist/index.js'); const c = await l.connect('test:///default'); console.log(await c.getLibVersion()); await c.close();",
    ]);
    expect(binding.status, binding.stderr).toBe(0);
    expect(binding.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    for (const daemon of [
      '/usr/sbin/libvirtd',
      '/usr/sbin/virtlogd',
      '/usr/bin/qemu-system-x86_64',
      '/usr/bin/qemu-img',
    ]) {
      expect(fs.existsSync(path.join(image.rootfs, daemon)), daemon).toBe(true);
    }
  });

  it('reports its size', () => {
    const bytes = fs.statSync(archive).size;
    console.log(`image archive: ${(bytes / 2 ** 20).toFixed(0)} MiB, ${image.layers} layer(s)`);
    expect(bytes).toBeGreaterThan(50 * 2 ** 20);
  });
});

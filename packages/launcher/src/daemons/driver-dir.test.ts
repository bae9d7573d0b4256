import { chmod, lstat, mkdir, mkdtemp, readdir, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  DriverDirError,
  QEMU_DRIVER_MODULE,
  findQemuDriverModule,
  makeDriverDir,
  qemuOnlyDriverDir,
  qemuOnlyDriverEnv,
  systemDriverDirs,
} from './driver-dir.js';

let base = '';
beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'vlt-driver-dir-'));
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

/** A driver directory as libvirt's packages install it: one module per driver. */
async function systemDir(name: string, drivers: string[]): Promise<string> {
  const dir = join(base, name);
  await mkdir(dir, { recursive: true });
  for (const d of drivers) await writeFile(join(dir, `libvirt_driver_${d}.so`), 'ELF');
  return dir;
}

const modeOf = async (path: string) => (await lstat(path)).mode & 0o7777;

describe('qemuOnlyDriverEnv', () => {
  it('points LIBVIRT_DRIVER_DIR at a 0755 directory of the pod holding only a link to the QEMU module', async () => {
    const system = await systemDir('connection-driver', ['network', 'nodedev', 'qemu', 'secret', 'storage']);
    const paths = { privateDir: join(base, 'run/kubevirt-private') };
    const choice = await qemuOnlyDriverEnv(paths, [join(base, 'missing'), system]);
    const dir = qemuOnlyDriverDir(paths);
    expect(choice.env).toEqual({ LIBVIRT_DRIVER_DIR: dir });
    expect(dir).toBe(join(base, 'run/kubevirt-private/libvirt-drivers'));
    expect(await readdir(dir)).toEqual([QEMU_DRIVER_MODULE]);
    expect(await readlink(join(dir, QEMU_DRIVER_MODULE))).toBe(join(system, QEMU_DRIVER_MODULE));
    expect(await modeOf(dir)).toBe(0o755);
    expect(choice.note).toContain('only the QEMU driver');
  });

  it('leaves libvirtd to its own directory (no variable, nothing made) when no QEMU module is found', async () => {
    const system = await systemDir('connection-driver', ['network', 'storage']);
    const paths = { privateDir: join(base, 'private') };
    const choice = await qemuOnlyDriverEnv(paths, [system]);
    expect(choice.env).toEqual({});
    expect(choice.note).toContain(system);
    await expect(lstat(paths.privateDir)).rejects.toThrow(/ENOENT/);
  });
});

describe('makeDriverDir', () => {
  it('replaces what an earlier run left: other modules, a wider mode', async () => {
    const system = await systemDir('sys', ['qemu']);
    const dir = join(base, 'private/libvirt-drivers');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'libvirt_driver_storage.so'), 'ELF');
    await chmod(dir, 0o777);
    await makeDriverDir(dir, join(system, QEMU_DRIVER_MODULE));
    expect(await readdir(dir)).toEqual([QEMU_DRIVER_MODULE]);
    expect(await modeOf(dir)).toBe(0o755);
  });

  it('removes a symlink found at its path instead of following it', async () => {
    const system = await systemDir('sys', ['qemu']);
    const elsewhere = await systemDir('elsewhere', ['network']);
    const dir = join(base, 'private/libvirt-drivers');
    await mkdir(join(base, 'private'));
    await symlink(elsewhere, dir);
    await makeDriverDir(dir, join(system, QEMU_DRIVER_MODULE));
    expect((await lstat(dir)).isDirectory()).toBe(true);
    expect(await readdir(elsewhere)).toEqual(['libvirt_driver_network.so']);
  });

  it('fails with a typed error naming the directory, and leaves nothing behind', async () => {
    // The parent is a file: the directory cannot be made.
    await writeFile(join(base, 'private'), 'not a directory');
    const dir = join(base, 'private/libvirt-drivers');
    const err = await makeDriverDir(dir, '/nowhere/libvirt_driver_qemu.so').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DriverDirError);
    expect((err as DriverDirError).path).toBe(dir);
    expect((err as Error).message).toContain(dir);
  });
});

describe('where the system modules are looked for', () => {
  it('a LIBVIRT_DRIVER_DIR given to the launcher first, then the distributions’ directories', () => {
    const dirs = systemDriverDirs({ LIBVIRT_DRIVER_DIR: '/opt/libvirt/drivers' });
    expect(dirs[0]).toBe('/opt/libvirt/drivers');
    expect(dirs).toContain('/usr/lib64/libvirt/connection-driver');
    expect(systemDriverDirs({})[0]).not.toBe('/opt/libvirt/drivers');
  });

  it('skips a directory whose QEMU entry is not a file', async () => {
    const odd = join(base, 'odd');
    await mkdir(join(odd, QEMU_DRIVER_MODULE), { recursive: true });
    const good = await systemDir('good', ['qemu']);
    expect(await findQemuDriverModule([odd, good])).toBe(join(good, QEMU_DRIVER_MODULE));
    expect(await findQemuDriverModule([odd])).toBeUndefined();
  });
});

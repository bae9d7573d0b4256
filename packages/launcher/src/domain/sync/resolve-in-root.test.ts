// resolveInRoot against a real directory tree: links inside an image volume are followed as if the volume were `/`
// (KubeVirt v1.9 pkg/safepath/safepath.go JoinAndResolveWithRelativeRoot, pkg/safepath/safepath_linux.go advance).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAX_PATH_ELEMENTS, resolveInRoot, RootedPathError } from './resolve-in-root.js';

let dir = '';
let root = '';

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vlt-launcher-rooted-'));
  root = join(dir, 'image');
  await mkdir(join(root, 'disk'), { recursive: true });
  await mkdir(join(root, 'boot'));
  await writeFile(join(root, 'disk/root.img'), 'disk');
  await writeFile(join(root, 'boot/vmlinuz'), 'kernel');
  // A file of the pod outside the image, which no link of the image may reach.
  await writeFile(join(dir, 'secret'), 'secret');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('resolveInRoot', () => {
  it('joins a plain path below the root', async () => {
    expect(await resolveInRoot(root, '/boot/vmlinuz')).toBe(join(root, 'boot/vmlinuz'));
    expect(await resolveInRoot(root, 'disk', 'root.img')).toBe(join(root, 'disk/root.img'));
  });

  it('keeps .. at the root', async () => {
    expect(await resolveInRoot(root, '../../boot/vmlinuz')).toBe(join(root, 'boot/vmlinuz'));
    await expect(resolveInRoot(root, '../secret')).rejects.toBeInstanceOf(RootedPathError);
  });

  it('reads an absolute link from the root, not from the host', async () => {
    await symlink(join(dir, 'secret'), join(root, 'boot/abs'));
    await symlink('/boot/vmlinuz', join(root, 'boot/kernel'));
    expect(await resolveInRoot(root, '/boot/kernel')).toBe(join(root, 'boot/vmlinuz'));
    // The host path of the secret, read inside the image, names nothing there.
    await expect(resolveInRoot(root, '/boot/abs')).rejects.toThrow(/does not|ENOENT/);
  });

  it('reads a relative link from its own directory and stops its .. at the root', async () => {
    await symlink('../boot/vmlinuz', join(root, 'disk/kernel'));
    await symlink('../../../secret', join(root, 'disk/up'));
    expect(await resolveInRoot(root, 'disk/kernel')).toBe(join(root, 'boot/vmlinuz'));
    await expect(resolveInRoot(root, 'disk/up')).rejects.toThrow(/\/secret: ENOENT/);
  });

  it('follows a linked directory inside the root', async () => {
    await symlink('/boot', join(root, 'b'));
    expect(await resolveInRoot(root, 'b/vmlinuz')).toBe(join(root, 'boot/vmlinuz'));
  });

  it('names the missing component', async () => {
    const error = await resolveInRoot(root, '/boot/initrd').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RootedPathError);
    expect(error).toMatchObject({ root, path: '/boot/initrd' });
    expect((error as Error).message).toContain('/boot/initrd: ENOENT');
  });

  it('ends a loop of links after the element limit', async () => {
    await symlink('/b', join(root, 'a'));
    await symlink('/a', join(root, 'b'));
    await expect(resolveInRoot(root, 'a')).rejects.toThrow(`more than ${MAX_PATH_ELEMENTS} path elements`);
  });

  it('refuses a relative root', async () => {
    await expect(resolveInRoot('image', 'disk')).rejects.toThrow(/not an absolute path/);
  });
});

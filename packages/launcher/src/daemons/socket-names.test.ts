// The pod's QEMU daemon socket names (socket-names.ts) against real Unix sockets in a temporary directory: a
// listener renamed the way the launcher renames libvirtd's still answers under its new name. The names follow
// KubeVirt v1.9: virt-handler's target proxy dials <pod>/var/run/libvirt/virtqemud-sock
// (pkg/virt-handler/migration-target.go) and a non-root launcher connects to
// qemu+unix:///session?socket=/var/run/libvirt/virtqemud-sock (cmd/virt-launcher/virt-launcher.go).
import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { connect, createServer } from 'node:net';
import type { Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { daemonSockets, publishSockets, qemudUri, removeSockets } from './socket-names.js';

let dir = '';
const servers: Server[] = [];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vlt-socket-names-'));
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
  await rm(dir, { recursive: true, force: true });
});

/** A listener that greets every client with `greeting`, as a daemon bound at `name` in the directory. */
async function listen(name: string, greeting: string): Promise<void> {
  const server = createServer((c) => c.end(greeting));
  servers.push(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(join(dir, name), resolve);
  });
}

function greetingAt(name: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const c = connect(join(dir, name));
    c.on('data', (d) => (text += d.toString()));
    c.on('end', () => resolve(text));
    c.on('error', reject);
  });
}

describe('daemonSockets', () => {
  it("maps libvirtd's three sockets to virtqemud's names as a system daemon, the read-write one in session mode", () => {
    expect(daemonSockets('libvirt', false)).toEqual([
      { bound: 'libvirt-sock', published: 'virtqemud-sock' },
      { bound: 'libvirt-sock-ro', published: 'virtqemud-sock-ro' },
      { bound: 'libvirt-admin-sock', published: 'virtqemud-admin-sock' },
    ]);
    expect(daemonSockets('libvirt', true)).toEqual([{ bound: 'libvirt-sock', published: 'virtqemud-sock' }]);
    expect(daemonSockets('virtqemud', false).every((s) => s.bound === s.published)).toBe(true);
  });
});

describe('qemudUri', () => {
  it("is KubeVirt's URI in a pod: qemu:///system as root, the session URI with virtqemud-sock as non-root", () => {
    expect(qemudUri('/var/run/libvirt', false)).toBe('qemu:///system');
    expect(qemudUri('/var/run/libvirt', true)).toBe('qemu+unix:///session?socket=/var/run/libvirt/virtqemud-sock');
  });

  it('names the socket under another run root', () => {
    expect(qemudUri('/tmp/r/var/run/libvirt', false)).toBe(
      'qemu+unix:///system?socket=/tmp/r/var/run/libvirt/virtqemud-sock',
    );
  });
});

describe('publishSockets', () => {
  it('waits for the bound sockets, renames them, and the listener answers under the new names only', async () => {
    const published = publishSockets(dir, daemonSockets('libvirt', false), { shouldStop: () => false });
    // Bound after the wait began, as libvirtd binds them a moment after its spawn.
    await listen('libvirt-sock', 'rw');
    await listen('libvirt-sock-ro', 'ro');
    const before = await stat(join(dir, 'libvirt-sock'));
    await listen('libvirt-admin-sock', 'admin');
    expect((await published).sort()).toEqual(['virtqemud-admin-sock', 'virtqemud-sock', 'virtqemud-sock-ro']);
    expect((await readdir(dir)).sort()).toEqual(['virtqemud-admin-sock', 'virtqemud-sock', 'virtqemud-sock-ro']);
    // The same inode: the mode and owner are the ones the daemon gave its socket.
    const after = await stat(join(dir, 'virtqemud-sock'));
    expect({ ino: after.ino, mode: after.mode, uid: after.uid }).toEqual({
      ino: before.ino,
      mode: before.mode,
      uid: before.uid,
    });
    expect(await greetingAt('virtqemud-sock')).toBe('rw');
    expect(await greetingAt('virtqemud-sock-ro')).toBe('ro');
    expect(await greetingAt('virtqemud-admin-sock')).toBe('admin');
  });

  it('replaces a stale file of the published name in the same step', async () => {
    await writeFile(join(dir, 'virtqemud-sock'), 'left by a killed daemon');
    await listen('libvirt-sock', 'fresh');
    const sockets = daemonSockets('libvirt', true);
    expect(await publishSockets(dir, sockets, { shouldStop: () => false })).toEqual(['virtqemud-sock']);
    expect((await stat(join(dir, 'virtqemud-sock'))).isSocket()).toBe(true);
    expect(await greetingAt('virtqemud-sock')).toBe('fresh');
  });

  it("leaves virtqemud's own names as they are", async () => {
    await listen('virtqemud-sock', 'virtqemud');
    const sockets = daemonSockets('virtqemud', true);
    expect(await publishSockets(dir, sockets, { shouldStop: () => false })).toEqual(['virtqemud-sock']);
    expect(await greetingAt('virtqemud-sock')).toBe('virtqemud');
  });

  it('ends the wait without a name once the daemon has exited', async () => {
    let exited = false;
    const published = publishSockets(dir, daemonSockets('libvirt', true), { shouldStop: () => exited });
    exited = true;
    expect(await published).toEqual([]);
    expect(await readdir(dir)).toEqual([]);
  });
});

describe('removeSockets', () => {
  it('removes both names of every socket and nothing else', async () => {
    for (const name of ['libvirt-sock', 'virtqemud-sock-ro', 'virtqemud-admin-sock', 'virtlogd-sock']) {
      await writeFile(join(dir, name), '');
    }
    await removeSockets(dir, daemonSockets('libvirt', false));
    expect(await readdir(dir)).toEqual(['virtlogd-sock']);
  });
});

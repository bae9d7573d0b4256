// Disk I/O errors on a real libvirtd: a TCG guest boots from an NBD disk whose every read fails (qemu-nbd
// over QEMU's blkdebug driver), so SeaBIOS's first read of the boot sector hits EIO. With
// rerror_policy='stop' QEMU pauses the guest (reason `ioerror`) and virDomainGetDiskErrors names the disk.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { connect } from './index.js';
import type { Connection, Domain } from './index.js';
import { startPrivateDaemon } from './private-daemon.js';
import type { PrivateDaemon } from './private-daemon.js';
import { nextEvent, tcgDomainXml, uniqueName } from './test-helpers.js';

async function failingNbdDisk(dir: string): Promise<{ socket: string; server: ChildProcess }> {
  const image = join(dir, 'disk.raw');
  const config = join(dir, 'blkdebug.conf');
  const socket = join(dir, 'nbd.sock');
  await writeFile(image, Buffer.alloc(1024 * 1024));
  await writeFile(config, '[inject-error]\nevent = "read_aio"\nerrno = "5"\n');
  const opts = `driver=raw,file.driver=blkdebug,file.config=${config},file.image.driver=file,file.image.filename=${image}`;
  const server = spawn('qemu-nbd', ['-k', socket, '--persistent', '--image-opts', opts], { stdio: 'ignore' });
  for (let i = 0; i < 100 && !existsSync(socket); i++) await new Promise((r) => setTimeout(r, 100));
  if (!existsSync(socket)) throw new Error(`qemu-nbd did not create ${socket}`);
  return { socket, server };
}

describe('a disk whose reads fail, with error policy stop', () => {
  let daemon: PrivateDaemon;
  let conn: Connection;
  let dom: Domain;
  let dir: string;
  let nbd: ChildProcess | undefined;
  const name = uniqueName('vlt-libvirt-ioerr');

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'vlt-libvirt-ioerr-'));
    const disk = await failingNbdDisk(dir);
    nbd = disk.server;
    daemon = await startPrivateDaemon('vlt-libvirt');
    conn = await connect(daemon.uri);
    dom = await conn.defineXML(
      tcgDomainXml(
        name,
        `<disk type='network' device='disk'>
          <driver name='qemu' type='raw' error_policy='stop' rerror_policy='stop'/>
          <source protocol='nbd'><host transport='unix' socket='${disk.socket}'/></source>
          <target dev='vda' bus='virtio'/><alias name='ua-broken'/><boot order='1'/></disk>`,
      ),
    );
  }, 180_000);

  afterAll(async () => {
    await dom?.destroy().catch(() => undefined);
    await dom?.undefine().catch(() => undefined);
    await conn?.close().catch(() => undefined);
    await daemon?.stop();
    nbd?.kill();
    await rm(dir, { recursive: true, force: true });
  }, 60_000);

  it('pauses the guest for an I/O error and names the disk in getDiskErrors', async () => {
    expect(await dom.getDiskErrors().catch((e: unknown) => e)).toBeInstanceOf(Error); // not running yet
    const paused = nextEvent(conn, name, 'suspended', 120_000);
    await dom.create();
    expect((await paused).detail).toBe('ioerror');
    expect(await dom.getState()).toMatchObject({ state: 'paused', reason: 'ioerror' });
    expect(await dom.getDiskErrors()).toEqual([{ disk: 'vda', error: 'unspec', errorCode: 1 }]);
  }, 180_000);
});

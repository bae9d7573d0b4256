// The node's migration proxy between two pods on one machine, as virt-handler's migration proxies play it across
// nodes (source pod's Unix socket → TCP between the handlers → target pod's Unix socket); here the two handlers are
// one process, so each pair is joined directly:
//   source <share>/migrationproxy/<uid>-source.sock        → the target pod's /var/run/libvirt/virtqemud-sock
//   source <share>/migrationproxy/<uid>-49152-source.sock  → the target's <uid>-49152-source.sock (QEMU's stream)
//   source <share>/migrationproxy/<uid>-49153-source.sock  → the target's <uid>-49153-source.sock (disk copy, NBD)
// A Unix socket path may hold at most 107 bytes, and a pod's run root is already long: the sockets are bound and
// dialled through short symlinks to the two migrationproxy directories.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { PodLayout } from './layout.js';

export const DIRECT_MIGRATION_PORT = 49152;
export const BLOCK_MIGRATION_PORT = 49153;

/** KubeVirt's qemu user (uid = gid 107), who owns the proxy's sockets in the pod. */
const SOCKET_OWNER = 107;

export interface MigrationProxies {
  /** Connections accepted per source socket name. */
  connections: Map<string, number>;
  close(): Promise<void>;
}

export class MigrationProxyError extends Error {
  constructor(
    message: string,
    readonly socket: string,
  ) {
    super(message);
    this.name = 'MigrationProxyError';
  }
}

/**
 * The pod's QEMU daemon socket, on the node's side: the one name virt-handler's target proxy dials, whichever daemon
 * serves it (KubeVirt v1.9 pkg/virt-handler/migration-target.go; the launcher publishes libvirtd's socket there).
 */
export function libvirtSocket(layout: PodLayout): string {
  return layout.hostPath('/var/run/libvirt/virtqemud-sock');
}

function shortLink(target: string, cleanups: Array<() => void>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vlt-mp-'));
  const link = path.join(dir, 'd');
  fs.symlinkSync(target, link);
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  return link;
}

function pipe(listenPath: string, dialPath: string, counted: (name: string) => void): Promise<net.Server> {
  fs.rmSync(listenPath, { force: true });
  const server = net.createServer((client) => {
    counted(path.basename(listenPath));
    const upstream = net.createConnection(dialPath);
    client.pipe(upstream);
    upstream.pipe(client);
    // Either side closing or failing ends both: a half-open migration stream would only hang the job.
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  return new Promise((resolve, reject) => {
    server.once('error', (err) =>
      reject(new MigrationProxyError(`cannot listen on ${listenPath}: ${err.message}`, listenPath)),
    );
    server.listen(listenPath, () => {
      // Owned by the pod's user, as virt-handler's proxy makes its sockets: a non-root pod's libvirt must connect.
      fs.chownSync(listenPath, SOCKET_OWNER, SOCKET_OWNER);
      resolve(server);
    });
  });
}

export async function startMigrationProxies(o: {
  source: PodLayout;
  target: PodLayout;
  uid: string;
  blockMigration: boolean;
}): Promise<MigrationProxies> {
  const cleanups: Array<() => void> = [];
  const servers: net.Server[] = [];
  const connections = new Map<string, number>();
  const counted = (name: string) => connections.set(name, (connections.get(name) ?? 0) + 1);
  const close = async () => {
    await Promise.all(servers.map((s) => new Promise<void>((r) => s.close(() => r()))));
    cleanups.forEach((c) => c());
  };
  try {
    const srcDir = o.source.hostPath('/var/run/kubevirt/migrationproxy');
    const dstDir = o.target.hostPath('/var/run/kubevirt/migrationproxy');
    fs.mkdirSync(srcDir, { recursive: true });
    if (!fs.existsSync(dstDir))
      throw new MigrationProxyError(`the target pod has no ${dstDir} (SyncMigrationTarget not done?)`, dstDir);
    const src = shortLink(srcDir, cleanups);
    const dst = shortLink(dstDir, cleanups);
    const libvirt = shortLink(libvirtSocket(o.target), cleanups);
    servers.push(await pipe(path.join(src, `${o.uid}-source.sock`), libvirt, counted));
    const ports = o.blockMigration ? [DIRECT_MIGRATION_PORT, BLOCK_MIGRATION_PORT] : [DIRECT_MIGRATION_PORT];
    for (const port of ports) {
      const name = `${o.uid}-${port}-source.sock`;
      servers.push(await pipe(path.join(src, name), path.join(dst, name), counted));
    }
    // The sockets outlive the symlinks' directories only as names in srcDir: remove them with the proxies.
    cleanups.push(() => {
      for (const name of fs.readdirSync(srcDir))
        if (name.startsWith(o.uid)) fs.rmSync(path.join(srcDir, name), { force: true });
    });
    return { connections, close };
  } catch (err) {
    await close();
    throw err;
  }
}

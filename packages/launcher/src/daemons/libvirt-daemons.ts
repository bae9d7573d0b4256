// Starts the libvirt daemons a pod needs: virtqemud where it exists, else the monolithic libvirtd (Debian 12
// ships only that), plus virtlogd; both under supervision. Returns the URI of the daemon's socket.
import { access, constants, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { LauncherPaths } from '../paths.js';
import { writeDaemonConfigs } from './config.js';
import { SupervisedDaemon } from './supervisor.js';

const sbin = ['/usr/sbin', '/usr/bin'];

async function findBinary(name: string): Promise<string | undefined> {
  for (const dir of sbin) {
    const path = join(dir, name);
    const ok = await access(path, constants.X_OK).then(
      () => true,
      () => false,
    );
    if (ok) return path;
  }
  return undefined;
}

export interface LibvirtDaemons {
  uri: string;
  socketPath: string;
  daemon: SupervisedDaemon;
  virtlogd: SupervisedDaemon | undefined;
  describe(): string;
  stop(): Promise<void>;
}

export async function startLibvirtDaemons(paths: LauncherPaths, logFilters: string): Promise<LibvirtDaemons> {
  const virtqemud = await findBinary('virtqemud');
  const name = virtqemud ? 'virtqemud' : 'libvirtd';
  const binary = virtqemud ?? (await findBinary('libvirtd'));
  if (!binary) throw new Error('neither virtqemud nor libvirtd is installed');
  const files = await writeDaemonConfigs(paths, name, logFilters);
  const socketName = virtqemud ? 'virtqemud-sock' : 'libvirt-sock';
  // A socket left by a killed daemon would make the first connect attempts hit a dead end.
  await rm(join(paths.libvirtRunDir, socketName), { force: true });
  const pidFile = join(paths.libvirtRunDir, `${name}.pid`);
  const daemon = new SupervisedDaemon(name, binary, ['-f', files.daemonConf, '--pid-file', pidFile]);
  const logdBinary = await findBinary('virtlogd');
  const virtlogd = logdBinary
    ? new SupervisedDaemon('virtlogd', logdBinary, [
        '-f',
        files.virtlogdConf,
        '--pid-file',
        join(paths.libvirtRunDir, 'virtlogd.pid'),
      ])
    : undefined;
  virtlogd?.start();
  daemon.start();
  return {
    uri: `qemu+unix:///system?socket=${join(paths.libvirtRunDir, socketName)}`,
    socketPath: join(paths.libvirtRunDir, socketName),
    daemon,
    virtlogd,
    describe: () => daemon.describe() + (virtlogd?.describe() ?? ''),
    stop: async () => {
      await daemon.stop();
      await virtlogd?.stop();
    },
  };
}

// The last step before the daemons stop: no QEMU may outlive the launcher. Normally the process monitor has
// already seen QEMU go; this covers every other way out (a stop that came while a Sync was starting the
// domain, a panic after the domain started, a daemon that no longer answers). libvirtd does not stop its
// guests when it exits, so anything still running here would run on with nobody to stop it.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Connection } from '../adapters/libvirt.js';
import { STATE } from '../domain/state.js';
import { errorMessage } from '../errors.js';
import { log } from '../log.js';

export interface LeftoverOptions {
  /** The live connection, if there is one. */
  conn: () => Connection | undefined;
  /** Our domain (`<ns>_<name>`); empty when unknown. */
  domainName: string;
  /** QEMU PID files of our own daemons; undefined with an external libvirt (its other guests are not ours). */
  pidDir: string | undefined;
}

const isActive = (state: number) => state !== STATE.shutoff && state !== STATE.noState && state !== STATE.crashed;

async function destroyActiveDomains(o: LeftoverOptions): Promise<void> {
  const conn = o.conn();
  if (!conn) return;
  const domains = await conn.listAllDomains().catch(() => []);
  for (const dom of domains) {
    // With our own daemons every domain is ours; with an external libvirt only the one we were started for.
    if (!o.pidDir && dom.name !== o.domainName) continue;
    try {
      if (!isActive((await dom.getState()).stateCode)) continue;
      log.warning(`Domain ${dom.name} still running while virt-launcher exits: destroying it`);
      await dom.destroy();
    } catch (err) {
      log.error(`Unable to destroy domain ${dom.name}`, { reason: errorMessage(err) });
    }
  }
}

/** QEMU processes named by PID files in our daemons' run dir (libvirt removes a file when its QEMU ends). */
async function killQemuByPidFiles(pidDir: string): Promise<void> {
  for (const file of await readdir(pidDir).catch(() => [] as string[])) {
    if (!file.endsWith('.pid')) continue;
    const pid = Number((await readFile(join(pidDir, file), 'utf8').catch(() => '')).trim());
    if (!Number.isInteger(pid) || pid <= 0) continue;
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    if (!/(^|\/)qemu/.test(cmdline.split('\0')[0] ?? '')) continue;
    log.warning(`QEMU ${pid} (${file}) still running while virt-launcher exits: killing it`, { pid });
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
}

export async function stopLeftoverGuests(o: LeftoverOptions): Promise<void> {
  await destroyActiveDomains(o);
  if (o.pidDir) await killQemuByPidFiles(o.pidDir);
}

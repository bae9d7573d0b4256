// The process monitor (docs/behaviour.md#process-monitor): once a second, is QEMU still there? With local daemons the PID
// file and /proc tell; with an external libvirt (--libvirt-uri) the domain's state does. On a stop signal
// it runs the graceful callback once, and after the grace period the final one (kill) every tick.
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Connection } from '../adapters/libvirt.js';
import { STATE } from '../domain/state.js';
import { isNoDomain } from '../errors.js';
import { log } from '../log.js';
import type { StopSignal } from './signals.js';

export interface MonitorOptions {
  domainName: string;
  conn: () => Connection;
  /** Directory of <domain>.pid, or undefined when libvirt is external. */
  pidDir: string | undefined;
  qemuTimeoutMs: number;
  gracePeriodSeconds: number;
  stop: StopSignal;
  onGraceful: () => Promise<void>;
  onFinal: (pid: number) => Promise<void>;
}

async function readPid(path: string): Promise<number | undefined> {
  const text = await readFile(path, 'utf8').catch(() => '');
  const pid = Number(text.trim());
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

async function processExists(pid: number): Promise<boolean> {
  return stat(`/proc/${pid}/cmdline`).then(
    () => true,
    () => false,
  );
}

async function domainActive(conn: Connection, name: string): Promise<boolean> {
  try {
    const { stateCode: state } = await (await conn.lookupDomainByName(name)).getState();
    return state !== STATE.shutoff && state !== STATE.noState && state !== STATE.crashed;
  } catch (err) {
    if (isNoDomain(err)) return false;
    return true; // a broken connection says nothing about QEMU
  }
}

export async function monitorQemu(o: MonitorOptions): Promise<void> {
  log.info(`Monitoring loop: rate 1s start timeout ${o.qemuTimeoutMs / 1000}s`);
  const started = Date.now();
  let pid: number | undefined;
  let seenActive = false;
  let graceStart: number | undefined;
  for (;;) {
    if (o.stop.stopped && graceStart === undefined) {
      graceStart = Math.floor(Date.now() / 1000);
      await o.onGraceful().catch((err: unknown) => log.error('graceful shutdown failed', { reason: String(err) }));
    }
    const graceExpired = graceStart !== undefined && Math.floor(Date.now() / 1000) - graceStart > o.gracePeriodSeconds;
    if (o.pidDir) {
      if (pid === undefined) {
        pid = await readPid(join(o.pidDir, `${o.domainName}.pid`));
        if (pid === undefined) {
          log.debug(`Still missing PID for ${o.domainName}`);
          if (Date.now() - started >= o.qemuTimeoutMs || graceExpired || graceStart !== undefined) {
            log.info(`domain ${o.domainName} PID not found after ${graceStart ? 'shutdown initiated' : 'timeout'}`);
            return;
          }
        } else log.info(`Found PID for ${o.domainName}: ${pid}`);
      }
      if (pid !== undefined && !(await processExists(pid))) {
        log.info(`Process ${o.domainName} and pid ${pid} is gone!`);
        return;
      }
    } else {
      const active = await domainActive(o.conn(), o.domainName);
      seenActive ||= active;
      if (!active && (seenActive || graceStart !== undefined || Date.now() - started >= o.qemuTimeoutMs)) {
        log.info(`Process ${o.domainName} is gone!`);
        return;
      }
    }
    if (graceExpired) {
      log.info('Grace Period expired, shutting down.');
      await o.onFinal(pid ?? 0).catch((err: unknown) => log.error('final shutdown failed', { reason: String(err) }));
    }
    await Promise.race([new Promise((r) => setTimeout(r, 1000)), graceStart === undefined ? o.stop.received : never]);
  }
}

const never = new Promise<never>(() => {});

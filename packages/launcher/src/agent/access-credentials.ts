// accessCredentials with the qemuGuestAgent propagation method, as KubeVirt's access-credential manager: the
// secrets are mounted at <private>/secret/<secret>-access-cred/; every 15 s after a change (and every 5 min
// regardless) the keys are read (one per non-empty line, files starting with ".." skipped) and each user's
// authorized_keys is replaced through the agent. The result goes into the metadata's AccessCredential
// (Succeeded, Message), which reaches the handler with the next domain event. Passwords are not set here.
import { watch } from 'node:fs';
import type { FSWatcher } from 'node:fs';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';

import { errorMessage } from '../errors.js';
import { log } from '../log.js';
import type { AgentDomain } from './types.js';

export const RESYNC_CHECK_MS = 15_000;
export const FORCE_RESYNC_MS = 5 * 60_000;

interface AccessCredentialSpec {
  sshPublicKey?: {
    source?: { secret?: { secretName?: string } };
    propagationMethod?: { qemuGuestAgent?: { users?: string[] } };
  };
  userPassword?: {
    source?: { secret?: { secretName?: string } };
    propagationMethod?: { qemuGuestAgent?: object };
  };
}

/** user -> secret names whose keys go into that user's authorized_keys. */
export function sshKeyUsers(creds: readonly AccessCredentialSpec[]): Map<string, string[]> {
  const users = new Map<string, string[]>();
  for (const c of creds) {
    const secret = c.sshPublicKey?.source?.secret?.secretName;
    const agent = c.sshPublicKey?.propagationMethod?.qemuGuestAgent;
    if (!secret || !agent) continue;
    for (const user of agent.users ?? []) users.set(user, [...(users.get(user) ?? []), secret]);
  }
  return users;
}

/** The secrets with a qemuGuestAgent propagation (keys or passwords): the directories to watch. */
export function agentSecrets(creds: readonly AccessCredentialSpec[]): string[] {
  const names: string[] = [];
  for (const c of creds) {
    const name = c.sshPublicKey?.propagationMethod?.qemuGuestAgent
      ? c.sshPublicKey.source?.secret?.secretName
      : c.userPassword?.propagationMethod?.qemuGuestAgent
        ? c.userPassword.source?.secret?.secretName
        : undefined;
    if (name) names.push(name);
  }
  return names;
}

export async function readKeys(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch((err: unknown) => {
    throw new Error(
      `error occurred while reading the list of secrets files from the base directory ${dir}: ${errorMessage(err)}`,
    );
  });
  const keys: string[] = [];
  for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    if (e.isDirectory() || e.name.startsWith('..')) continue;
    const text = await readFile(join(dir, e.name), 'utf8');
    keys.push(
      ...text
        .split('\n')
        .map((l) => l.trim())
        .filter((l) => l !== ''),
    );
  }
  return keys;
}

export interface AccessCredentialResult {
  Succeeded: boolean;
  Message: string;
}

export interface AccessCredentialOptions {
  secretBaseDir: string;
  lookup: (domainName: string) => Promise<AgentDomain>;
  report: (result: AccessCredentialResult) => void;
  resyncCheckMs?: number;
  forceResyncMs?: number;
}

export class AccessCredentials {
  private started = false;
  private watchers: FSWatcher[] = [];
  private timers: NodeJS.Timeout[] = [];
  private changed = true;
  private reload = true;
  private running: Promise<void> = Promise.resolve();

  constructor(private readonly o: AccessCredentialOptions) {}

  /** Starts propagation for the VMI of a Sync (once; later Syncs change nothing, as in KubeVirt). */
  handle(vmiJson: Buffer, domainName: string): void {
    if (this.started) return;
    const doc = JSON.parse(vmiJson.toString('utf8')) as { spec?: { accessCredentials?: AccessCredentialSpec[] } };
    const creds = doc.spec?.accessCredentials ?? [];
    const secrets = agentSecrets(creds);
    if (secrets.length === 0) return;
    this.started = true;
    for (const s of secrets) {
      try {
        this.watchers.push(watch(this.secretDir(s), () => (this.changed = true)));
      } catch (err) {
        log.error('Error encountered while watching downward api secret', { reason: errorMessage(err) });
      }
    }
    const tick = (): void => {
      if (this.changed) this.reload = true;
      if (!this.reload) return;
      this.changed = false;
      this.running = this.running.then(async () => {
        this.reload = await this.sync(creds, domainName);
      });
    };
    const check = setInterval(tick, this.o.resyncCheckMs ?? RESYNC_CHECK_MS);
    const force = setInterval(() => {
      this.reload = true;
      log.info('Resyncing access credentials due to recurring resync period');
      tick();
    }, this.o.forceResyncMs ?? FORCE_RESYNC_MS);
    check.unref();
    force.unref();
    this.timers.push(check, force);
  }

  private secretDir(secret: string): string {
    return join(this.o.secretBaseDir, `${secret}-access-cred`);
  }

  /** One propagation round; true when it must be tried again. */
  async sync(creds: readonly AccessCredentialSpec[], domainName: string): Promise<boolean> {
    let dom: AgentDomain;
    try {
      dom = await this.o.lookup(domainName);
      await dom.qemuAgentCommand({ execute: 'guest-ping' });
    } catch {
      this.o.report({ Succeeded: false, Message: 'Guest agent is offline' });
      return true;
    }
    let failed: string | undefined;
    for (const [user, secrets] of sshKeyUsers(creds)) {
      try {
        const keys: string[] = [];
        for (const s of secrets) keys.push(...(await readKeys(this.secretDir(s))));
        await dom.authorizedSSHKeysSet(user, keys);
      } catch (err) {
        failed = `Error encountered writing ssh pub key access credentials for user [${user}]: ${errorMessage(err)}`;
        log.error('Error encountered writing access credentials using guest agent', { reason: errorMessage(err) });
        this.o.report({ Succeeded: false, Message: failed });
      }
    }
    if (failed === undefined) this.o.report({ Succeeded: true, Message: '' });
    return failed !== undefined;
  }

  /** Resolves once the round in flight (if any) is done. */
  idle(): Promise<void> {
    return this.running;
  }

  stop(): void {
    this.watchers.forEach((w) => w.close());
    this.timers.forEach((t) => clearInterval(t));
    this.watchers = [];
    this.timers = [];
  }
}

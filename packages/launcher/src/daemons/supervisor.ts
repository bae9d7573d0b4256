// Runs a daemon in the foreground and restarts it one second after it dies (KubeVirt's "<daemon> exited,
// restarting" loop). Its stderr lines go to the launcher log, and the last ones plus the exit reason are
// kept so a failure says why ("exited with code 1: Failed to parse user 'libvirt-qemu'") instead of a bare
// "failed to connect socket".
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { log } from '../log.js';

export interface DaemonHooks {
  /** Clean-up after every death of the daemon (before a restart, and at stop): e.g. its orphaned children. */
  afterExit?: () => Promise<unknown>;
  /**
   * Called after every spawn (the first and each restart) with a check that is true while that spawn runs: work
   * that follows each start of the daemon, such as giving its sockets their pod names.
   */
  afterSpawn?: (running: () => boolean) => unknown;
  /** Variables added to the launcher's environment for the daemon (session mode's XDG directories). */
  env?: Record<string, string>;
  /**
   * The daemon's argv[0] when it is not the binary's path: what `ps` shows as its command (libvirtd runs under
   * the name virtqemud, as KubeVirt's pod shows it).
   */
  argv0?: string;
}

export class SupervisedDaemon {
  private child: ChildProcess | undefined;
  private stopped = false;
  private readonly tail: string[] = [];
  private lastExit = '';
  restarts = 0;

  private readonly afterExit: () => Promise<unknown>;
  private readonly afterSpawn: (running: () => boolean) => unknown;
  private readonly env: Record<string, string>;
  private readonly argv0: string | undefined;

  constructor(
    readonly name: string,
    readonly binary: string,
    readonly args: string[],
    hooks: DaemonHooks = {},
  ) {
    this.afterExit = hooks.afterExit ?? (async () => undefined);
    this.afterSpawn = hooks.afterSpawn ?? (() => undefined);
    this.env = hooks.env ?? {};
    this.argv0 = hooks.argv0;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** The daemon's last stderr lines and how it last exited, for error messages. */
  describe(): string {
    const parts = [];
    if (this.lastExit) parts.push(`${this.name} ${this.lastExit}`);
    if (this.tail.length) parts.push(`${this.name} stderr: ${this.tail.slice(-5).join(' | ')}`);
    return parts.length ? `; ${parts.join('; ')}` : '';
  }

  start(): void {
    if (this.stopped) return;
    const child = spawn(this.binary, this.args, {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, ...this.env },
      ...(this.argv0 ? { argv0: this.argv0 } : {}),
    });
    this.child = child;
    let exited = false;
    child.once('exit', () => (exited = true));
    child.once('error', () => (exited = true));
    this.afterSpawn(() => !exited && !this.stopped);
    let buf = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      buf += chunk.toString();
      let i;
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i).trim();
        buf = buf.slice(i + 1);
        if (!line) continue;
        this.tail.push(line);
        if (this.tail.length > 20) this.tail.shift();
        // libvirt's own log lines carry their level ("<ts>: <pid>: error : ..."); keep it.
        const level = /: (error|warning) : /.exec(line)?.[1];
        if (level === 'error') log.error(line, { subcomponent: this.name });
        else if (level === 'warning') log.warning(line, { subcomponent: this.name });
        else log.info(line, { subcomponent: this.name });
      }
    });
    child.on('error', (err) => {
      this.lastExit = `could not be started: ${err.message}`;
    });
    child.on('exit', (code, signal) => {
      this.lastExit = signal ? `was killed by ${signal}` : `exited with code ${code}`;
      if (this.stopped) return;
      log.warning(`${this.name} exited, restarting`, { reason: this.lastExit });
      this.restarts++;
      void this.afterExit()
        .catch(() => undefined)
        .then(() => setTimeout(() => this.start(), 1000).unref());
    });
  }

  /** SIGTERM, then SIGKILL after 2 s: the daemons must not outlive the launcher. */
  async stop(): Promise<void> {
    this.stopped = true;
    const child = this.child;
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((r) => child.once('exit', () => r()));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 2000);
      await exited;
      clearTimeout(timer);
    }
    await this.afterExit().catch(() => undefined);
  }
}

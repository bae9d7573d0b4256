// Boots the guest with plain qemu-system-x86_64 (TCG) and watches its serial console on stdout.
import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';

export interface BootOptions {
  kernel: string;
  initrd: string;
  append: string;
  /** Raw images attached as virtio disks, in order (vda, vdb, ...). */
  disks: string[];
  /** QEMU -nic argument; 'none' for no network. */
  nic: string;
  /** Path of a unix socket for the human monitor (used to press the ACPI power button). */
  monitorSocket: string;
}

export class ConsoleTimeoutError extends Error {
  constructor(
    readonly pattern: RegExp,
    readonly console: string,
  ) {
    super(`no ${pattern} on the serial console; last output:\n${console.slice(-1500)}`);
    this.name = 'ConsoleTimeoutError';
  }
}

export class RunningGuest {
  console = '';
  readonly exited: Promise<number | null>;
  private waiters: Array<() => void> = [];

  constructor(private readonly child: ChildProcess) {
    const feed = (chunk: Buffer) => {
      this.console += chunk.toString('latin1');
      for (const w of this.waiters) w();
    };
    child.stdout?.on('data', feed);
    child.stderr?.on('data', feed);
    this.exited = new Promise((resolve) =>
      child.on('exit', (code) => {
        for (const w of this.waiters) w();
        resolve(code);
      }),
    );
  }

  /**
   * Resolves with the first match of pattern in the console's complete lines (a line still arriving could match a
   * prefix of its value: "mtu=140" of "mtu=1400"); rejects after timeoutMs (a bound, not an assertion).
   */
  waitFor(pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const exited = this.child.exitCode !== null || this.child.signalCode !== null;
        const lines = exited ? this.console : this.console.slice(0, this.console.lastIndexOf('\n') + 1);
        const m = lines.match(pattern);
        if (m) {
          done();
          resolve(m);
        } else if (exited) {
          done();
          reject(new ConsoleTimeoutError(pattern, this.console));
        }
      };
      const timer = setTimeout(() => {
        done();
        reject(new ConsoleTimeoutError(pattern, this.console));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        this.waiters = this.waiters.filter((w) => w !== check);
      };
      this.waiters.push(check);
      check();
    });
  }

  /** Sends a human-monitor command such as `system_powerdown`. */
  monitor(socketPath: string, command: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const sock = connect(socketPath, () => sock.end(`${command}\n`));
      sock.on('error', reject);
      sock.on('close', () => resolve());
      sock.resume();
    });
  }

  kill(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
  }
}

export function bootGuest(opts: BootOptions): RunningGuest {
  const args = ['-machine', 'q35', '-accel', 'tcg', '-m', '256', '-nographic', '-no-reboot'];
  args.push('-kernel', opts.kernel, '-initrd', opts.initrd, '-append', opts.append);
  for (const disk of opts.disks) args.push('-drive', `file=${disk},format=raw,if=virtio,readonly=on`);
  args.push('-nic', opts.nic);
  args.push('-monitor', `unix:${opts.monitorSocket},server=on,wait=off`);
  const child = spawn('qemu-system-x86_64', args, { stdio: ['pipe', 'pipe', 'pipe'] });
  return new RunningGuest(child);
}

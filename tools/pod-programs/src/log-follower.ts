// Follows one log file by name, the way `tail -F` does: it starts at the beginning, waits for the file when
// it does not exist yet, re-reads from the start when the file shrinks (truncated by copytruncate or
// re-created by the writer), and across a rename-and-recreate rotation keeps reading the old file until
// a new one takes the name, finishing the old one before switching. Only whole lines are handed on; a trailing partial line waits for its newline.
// Polling by stat keeps it independent of inotify limits inside containers; the interval is a fraction
// of a second, well under the latency anyone reads a serial console log with.
import { open, stat } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';

const CHUNK = 64 * 1024;

export interface FollowerOptions {
  pollMs?: number;
  /** Called with each complete line, without its newline. */
  onLine: (line: string) => void;
  /** Unexpected read errors (not "file missing"): reported, and following goes on. */
  onError?: (err: Error) => void;
}

export class LogFollower {
  private fh: FileHandle | undefined;
  private ino = -1;
  private offset = 0;
  private partial: Buffer = Buffer.alloc(0);
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private tickDone: Promise<void> = Promise.resolve();
  private readonly pollMs: number;

  constructor(
    readonly path: string,
    private readonly opts: FollowerOptions,
  ) {
    this.pollMs = opts.pollMs ?? 200;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.schedule(0);
  }

  /** Stops following; resolves once the current read has finished and the file is closed. */
  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    await this.tickDone;
    // One last pass, so lines written just before the pod's SIGTERM still reach the log.
    await this.tick().catch((err: Error) => this.opts.onError?.(err));
    await this.close();
  }

  private schedule(ms: number): void {
    this.timer = setTimeout(() => {
      this.tickDone = this.tick()
        .catch((err: Error) => this.opts.onError?.(err))
        .finally(() => {
          if (this.running) this.schedule(this.pollMs);
        });
    }, ms);
  }

  private async tick(): Promise<void> {
    const st = await stat(this.path).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return undefined;
      throw err;
    });
    if (this.fh && !st) {
      // Renamed away, new file not there yet: the writer may still be appending to the old one, keep it.
      await this.readToEnd();
      return;
    }
    if (this.fh && st && st.ino !== this.ino) {
      // A new file took the name: finish the old one, then switch.
      await this.readToEnd();
      this.flushPartial();
      await this.close();
    }
    if (!st) return;
    if (!this.fh) {
      this.fh = await open(this.path, 'r');
      this.ino = st.ino;
      this.offset = 0;
    } else if (st.size < this.offset) {
      this.offset = 0;
      this.partial = Buffer.alloc(0);
    }
    await this.readToEnd();
  }

  private async readToEnd(): Promise<void> {
    if (!this.fh) return;
    const buf = Buffer.alloc(CHUNK);
    for (;;) {
      const { bytesRead } = await this.fh.read(buf, 0, CHUNK, this.offset);
      if (bytesRead === 0) return;
      this.offset += bytesRead;
      this.emitLines(buf.subarray(0, bytesRead));
    }
  }

  private emitLines(chunk: Buffer): void {
    let data = this.partial.length ? Buffer.concat([this.partial, chunk]) : chunk;
    for (let nl = data.indexOf(0x0a); nl !== -1; nl = data.indexOf(0x0a)) {
      const end = nl > 0 && data[nl - 1] === 0x0d ? nl - 1 : nl;
      this.opts.onLine(data.subarray(0, end).toString('utf8'));
      data = data.subarray(nl + 1);
    }
    this.partial = Buffer.from(data);
  }

  private flushPartial(): void {
    if (this.partial.length) this.opts.onLine(this.partial.toString('utf8'));
    this.partial = Buffer.alloc(0);
  }

  private async close(): Promise<void> {
    const fh = this.fh;
    this.fh = undefined;
    this.ino = -1;
    await fh?.close();
  }
}

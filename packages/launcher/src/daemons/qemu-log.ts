// QEMU's own log (libvirt's `<domain>.log`: the command line, then whatever QEMU prints on stderr) copied into the
// launcher's log as lines with `subcomponent: qemu`, as KubeVirt's launcher does by following the same file. A
// guest that fails to start is then explained in the pod's log ("could not load kernel", a refused -cpu),
// not only by libvirt's short summary.
import { open, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import type { LauncherPaths } from '../paths.js';
import { log } from '../log.js';

/** How often the file is checked for new bytes: QEMU writes little, and a line a quarter second late is fine. */
const POLL_MS = 250;
/** One read at most this much: a runaway log is copied in slices instead of one huge buffer. */
const CHUNK = 64 * 1024;

export type QemuLogSink = (line: string) => void;

const toLauncherLog: QemuLogSink = (line) => log.info(line, { subcomponent: 'qemu' });

/** Turns appended text into whole log lines; libvirt breaks the QEMU command line with trailing backslashes. */
export class QemuLogLines {
  private partial = '';
  private continued = '';

  constructor(private readonly sink: QemuLogSink) {}

  push(text: string): void {
    this.partial += text;
    let i;
    while ((i = this.partial.indexOf('\n')) >= 0) {
      this.line(this.partial.slice(0, i));
      this.partial = this.partial.slice(i + 1);
    }
  }

  /** Emits what is left without its newline (QEMU died mid-line) and a command line cut after a backslash. */
  flush(): void {
    if (this.partial) this.line(this.partial);
    this.partial = '';
    if (this.continued) this.sink(this.continued);
    this.continued = '';
  }

  private line(raw: string): void {
    const text = raw.replace(/\r$/, '');
    if (!text.trim()) return;
    if (text.endsWith('\\')) {
      this.continued += text;
      return;
    }
    this.sink(this.continued + text);
    this.continued = '';
  }
}

/** Follows one file from its start: waits for it to appear, reads what is appended, starts over when truncated. */
export class QemuLogFollower {
  private offset = 0;
  private timer: NodeJS.Timeout | undefined;
  private reading: Promise<void> = Promise.resolve();
  private readonly lines: QemuLogLines;
  /** Keeps a UTF-8 character split between two reads whole. */
  private decoder = new StringDecoder('utf8');

  constructor(
    readonly file: string,
    sink: QemuLogSink = toLauncherLog,
  ) {
    this.lines = new QemuLogLines(sink);
  }

  start(): this {
    this.timer ??= setInterval(() => void this.poll(), POLL_MS);
    this.timer.unref();
    return this;
  }

  /** Reads what is still unread (the last lines of a QEMU that just exited), then stops. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.poll();
    this.lines.flush();
  }

  /** One check of the file; polls never overlap (each waits for the one before). */
  poll(): Promise<void> {
    this.reading = this.reading.then(() => this.readNew()).catch(() => undefined);
    return this.reading;
  }

  private async readNew(): Promise<void> {
    const size = await stat(this.file).then(
      (s) => s.size,
      () => undefined,
    );
    if (size === undefined) return;
    if (size < this.offset) {
      // Truncated or replaced: read the new content from its start.
      this.offset = 0;
      this.decoder = new StringDecoder('utf8');
    }
    if (size === this.offset) return;
    const handle = await open(this.file, 'r');
    try {
      while (this.offset < size) {
        const buffer = Buffer.alloc(Math.min(CHUNK, size - this.offset));
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, this.offset);
        if (bytesRead === 0) break;
        this.offset += bytesRead;
        this.lines.push(this.decoder.write(buffer.subarray(0, bytesRead)));
      }
    } finally {
      await handle.close();
    }
  }
}

/** Starts following `<libvirtLogDir>/<domain>.log`, where this pod's daemon writes QEMU's log. */
export function followQemuLog(paths: LauncherPaths, domainName: string, sink?: QemuLogSink): QemuLogFollower {
  return new QemuLogFollower(join(paths.libvirtLogDir, `${domainName}.log`), sink).start();
}

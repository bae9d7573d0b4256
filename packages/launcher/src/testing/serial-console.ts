// Test support: one long-lived connection to a guest's serial console socket (QEMU serves one client), with
// waits for a line pattern that only look at output after a given mark, so ordered steps of one guest each
// wait for their own line.
import { connect, type Socket } from 'node:net';

export class SerialConsole {
  text = '';
  private sock: Socket | undefined;
  private waiters: Array<() => void> = [];

  /** Connects, retrying until QEMU has made the socket (or the deadline passes). */
  static async open(path: string, timeoutMs = 120_000): Promise<SerialConsole> {
    const console = new SerialConsole();
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      try {
        console.sock = await new Promise<Socket>((resolve, reject) => {
          const s = connect(path, () => resolve(s));
          s.once('error', reject);
        });
        break;
      } catch (err) {
        if (Date.now() > deadline) throw new Error(`no serial console at ${path}`, { cause: err });
        await new Promise((r) => setTimeout(r, 200));
      }
    }
    console.sock.on('data', (d: Buffer) => {
      console.text += d.toString();
      console.waiters.forEach((w) => w());
    });
    console.sock.on('error', () => undefined);
    return console;
  }

  /** Where the output is now: pass it to waitFor to match only what comes later. */
  mark(): number {
    return this.text.length;
  }

  /** The first complete line after `from` matching `pattern`. */
  waitFor(pattern: RegExp, from: number, timeoutMs = 120_000): Promise<string> {
    const find = () =>
      this.text
        .slice(from)
        .split('\n')
        .slice(0, -1)
        .find((l) => pattern.test(l));
    return new Promise((resolve, reject) => {
      const check = () => {
        const hit = find();
        if (hit === undefined) return;
        clearTimeout(timer);
        this.waiters = this.waiters.filter((w) => w !== check);
        // The guest's shell may have written its prompt on the same line before the marker: from the marker on.
        const marker = hit.indexOf('VLT-GUEST:');
        resolve((marker > 0 ? hit.slice(marker) : hit).trim());
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== check);
        reject(
          new Error(
            `no console line ${String(pattern)} within ${timeoutMs} ms; after the mark:\n${this.text.slice(from)}`,
          ),
        );
      }, timeoutMs);
      this.waiters.push(check);
      check();
    });
  }

  close(): void {
    this.sock?.destroy();
  }
}

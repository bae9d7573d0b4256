// The guest's serial console socket lives under the pod's run root; with a long VMI name or uid its host path is
// longer than a unix socket address may be (108 bytes). The watcher must still reach it.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { watchSerialConsole } from './serial-console.js';

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** A console server whose socket sits at a path `length` bytes long (bound short, then renamed there). */
async function consoleAt(length: number, text: string): Promise<{ socketPath: string; server: net.Server }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vlt-pod-console-'));
  made.push(dir);
  const server = net.createServer((c) => c.end(text));
  const short = path.join(dir, 's');
  await new Promise<void>((resolve) => server.listen(short, resolve));
  const deep = path.join(dir, 'x'.repeat(Math.max(1, length - dir.length - 'virt-serial0'.length - 2)));
  fs.mkdirSync(deep);
  const socketPath = path.join(deep, 'virt-serial0');
  // A listening socket keeps answering under a new name: rename moves the file, not the socket.
  fs.renameSync(short, socketPath);
  return { socketPath, server };
}

describe('watchSerialConsole', () => {
  for (const length of [80, 150]) {
    it(`reads the guest's lease line from a socket whose path is ${length} bytes long`, async () => {
      const { socketPath, server } = await consoleAt(
        length,
        'boot\r\nVLT-GUEST: lease ip=10.0.2.2 router=10.0.2.1\r\n',
      );
      expect(Buffer.byteLength(socketPath)).toBeGreaterThanOrEqual(length - 1);
      const abort = new AbortController();
      const lines: string[] = [];
      const watch = watchSerialConsole(socketPath, (l) => lines.push(l), abort.signal);
      try {
        expect(await watch.lease).toBe('VLT-GUEST: lease ip=10.0.2.2 router=10.0.2.1');
        expect(lines[0]).toBe('boot');
      } finally {
        watch.close();
        abort.abort();
        server.close();
      }
    }, 20_000);
  }
});

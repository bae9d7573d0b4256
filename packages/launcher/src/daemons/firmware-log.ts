// SeaBIOS's debug console, which the converter gives an amd64 domain when VIRT_LAUNCHER_LOG_VERBOSITY is above 5,
// copied into the launcher's log as `[SeaBios]: <line>` (subcomponent qemu), as KubeVirt's launcher does. The file
// QEMU writes is a FIFO this launcher makes before any domain starts, so the firmware's output streams into the
// pod's log instead of growing a file in the private directory.
import { execFile } from 'node:child_process';
import { constants, openSync } from 'node:fs';
import { chmod, lstat, unlink } from 'node:fs/promises';
import { Socket } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { log } from '../log.js';
import { QemuLogLines, type QemuLogSink } from './qemu-log.js';

/** The file name the converter writes into `-chardev file,…,path=<private dir>/…` (KubeVirt's own name). */
export const FIRMWARE_LOG_FILE = 'QEMUSeaBiosDebugPipe';

/**
 * Owner only: QEMU runs as the launcher's own user here (qemu.conf names root in a root pod, a session daemon runs
 * as the pod's user), so no other process of the pod may feed lines into the launcher's log. (KubeVirt's is 0666:
 * its root-mode QEMU runs as another user.)
 */
const FIFO_MODE = 0o600;

const toLauncherLog: QemuLogSink = (line) => log.info(`[SeaBios]: ${line}`, { subcomponent: 'qemu' });

export interface FirmwareLogRelay {
  readonly path: string;
  stop(): Promise<void>;
}

async function makeFifo(path: string): Promise<void> {
  const existing = await lstat(path).catch(() => undefined);
  if (existing && !existing.isFIFO()) await unlink(path); // a regular file from an earlier launcher: replace it
  if (!existing?.isFIFO()) await promisify(execFile)('mkfifo', ['-m', FIFO_MODE.toString(8), path]);
  await chmod(path, FIFO_MODE); // a FIFO left by an earlier launcher keeps whatever mode it had
}

/**
 * Makes `<privateDir>/QEMUSeaBiosDebugPipe` a FIFO and relays its lines to `sink`. The FIFO is held open for
 * reading and writing: opening it never blocks (a read-only open would wait for QEMU), and the relay never sees an
 * end of file between two QEMU runs, since it is a writer itself. Reads go through libuv's event loop, not a
 * thread of its pool.
 */
export async function relayFirmwareLog(
  privateDir: string,
  sink: QemuLogSink = toLauncherLog,
): Promise<FirmwareLogRelay> {
  const path = join(privateDir, FIRMWARE_LOG_FILE);
  await makeFifo(path);
  // A plain descriptor, not a FileHandle: the socket owns and closes it. A FileHandle would be closed when it is
  // collected, and the socket would then read whatever later reuses the number (the cmd server's connections).
  const fd = openSync(path, constants.O_RDWR | constants.O_NONBLOCK);
  const lines = new QemuLogLines(sink);
  const socket = new Socket({ fd, readable: true, writable: false });
  socket.setEncoding('utf8');
  socket.on('data', (text: string) => lines.push(text));
  socket.on('error', (err) => log.error(`[SeaBios]: reading ${path} failed: ${err.message}`, { subcomponent: 'qemu' }));
  socket.unref();
  return {
    path,
    async stop() {
      lines.flush();
      socket.destroy();
    },
  };
}

/** As KubeVirt's launcher: a relay that cannot start is logged, never fatal (QEMU then writes a plain file). */
export async function relayFirmwareLogOrWarn(privateDir: string): Promise<FirmwareLogRelay | undefined> {
  return relayFirmwareLog(privateDir).catch((err: unknown) => {
    log.error(`[SeaBios]: no debug log relay: ${err instanceof Error ? err.message : String(err)}`, {
      subcomponent: 'qemu',
    });
    return undefined;
  });
}

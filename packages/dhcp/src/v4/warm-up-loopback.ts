// The in-process warm-up (warm-up.ts) leaves out everything around the handler: the native socket's receive path
// (buffer copy, call into JS), the socket wrappers, the native send. Measured on the first DISCOVER after start,
// those cost ~1 ms (ten times the later ones), the biggest part of the first reply's time. So, before the bridge
// socket opens, requests go around once through the pod's own loopback: a socket of the same kind on `lo`, port
// 67, sends them to itself and answers them to itself (it then ignores its own BOOTREPLYs). Nothing reaches the
// bridge or any other port. Best effort: without a usable `lo` (down, no address) the start goes on without it.
// Node's timer code is compiled here as well (settleTimerTail), not when the guest arrives.
import { createLogger } from '@virt-launcher/shared';
import { openBoundSocket } from '../bound-socket.js';
import type { PreparedV4 } from './prepare.js';
import { type ReplySocket, sendThrough, v4Handler } from './handler.js';
import { warmUpRequests } from './warm-up.js';

const ROUNDS = 8;
/** A loopback round trip takes tens of microseconds; a start is never held up longer than this. */
const TIMEOUT_MS = 250;
const SELF = { address: '127.0.0.1', port: 67, scopeId: 0 };

/** Resolves to the number of requests answered through the loopback (0 when it could not be used). */
export async function warmUpThroughLoopback(p: PreparedV4): Promise<number> {
  const requests = warmUpRequests(p);
  const expected = ROUNDS * requests.length;
  const stats = { received: 0, replied: 0, ignored: 0, malformed: 0 };
  const target: ReplySocket = { socket: undefined, redirect: SELF };
  let timer: NodeJS.Timeout | undefined;
  try {
    await new Promise<void>((resolve) => {
      const handle = v4Handler(
        p,
        createLogger({ component: 'virt-dhcp', write: () => {} }),
        sendThrough(target),
        stats,
      );
      const socket = openBoundSocket(4, 'lo', SELF.port, (data, from) => {
        handle(data, from);
        // Each request comes back once as itself and once as its reply.
        if (stats.received >= 2 * expected) resolve();
      });
      target.socket = socket;
      timer = setTimeout(resolve, TIMEOUT_MS);
      for (let i = 0; i < ROUNDS; i++) for (const bytes of requests) socket.send(bytes, SELF);
    });
  } catch {
    // No loopback to warm through: the first guest request pays for it instead.
  } finally {
    clearTimeout(timer);
    target.socket?.close();
  }
  await settleTimerTail();
  return stats.replied;
}

/**
 * Timer-tail: a cleared timer still wakes the loop at its due time, and the first timer callback of the process
 * compiles Node's timer code then: measured ~2 ms of main-thread CPU 100–200 ms after `listening`, just when a
 * guest that boots at once sends its DISCOVER. One zero-delay timer before the start is announced pays that
 * compilation now; the later wake-up finds an empty list and costs microseconds.
 */
function settleTimerTail(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

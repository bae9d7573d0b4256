// After the server starts the launcher dials itself like the handler would (Info handshake + Ping), every
// second for up to 15 s; no answer means the server is broken and the launcher must not report ready.
import { connectLauncher } from '../cmd-client.js';
import { LauncherPanic, errorMessage } from '../errors.js';

export async function selfPing(socketPath: string, intervalMs = 1000, totalMs = 15_000): Promise<void> {
  const deadline = Date.now() + totalMs;
  let last: unknown;
  for (;;) {
    try {
      const client = await connectLauncher(socketPath, 2000);
      try {
        const res = await client.call('ping', {});
        if (res.success) return;
        last = new Error(res.message);
      } finally {
        client.close();
      }
    } catch (err) {
      last = err;
    }
    if (Date.now() + intervalMs > deadline) break;
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  throw new LauncherPanic(`failed to connect to cmd server: ${errorMessage(last)}`, last);
}

// A TCP listener in the node namespace standing in for "the rest of the cluster": the guest connects to it through
// masquerade, and the address it sees proves the NAT (the pod's IP, not the guest's 10.0.2.2).
import { execa, type ResultPromise } from 'execa';

export interface NodeProbe {
  port: number;
  /**
   * Resolves with the next connection's peer address and payload, in the order they came; undefined when the
   * listener ended first.
   */
  nextHello(): Promise<ProbeHello | undefined>;
  stop(): void;
}

const listener = `
const net = require('node:net');
const server = net.createServer((s) => {
  let text = '';
  s.on('data', (d) => { text += d; });
  s.on('end', () => { process.stdout.write(JSON.stringify({ from: s.remoteAddress, text: text.trim() }) + '\\n'); });
});
server.listen(Number(process.argv[1]), process.argv[2], () => process.stdout.write('listening\\n'));
`;

export interface ProbeHello {
  from: string;
  text: string;
}

/** Listens on `host` (`::` takes both families) in the node namespace. */
export async function startNodeProbe(nodeNs: string, host: string, port = 8080): Promise<NodeProbe> {
  const child: ResultPromise = execa(
    'ip',
    ['netns', 'exec', nodeNs, process.execPath, '-e', listener, String(port), host],
    // Its own session: a Ctrl-C on the terminal is virt-pod's to handle, not the listener's.
    { buffer: false, reject: false, detached: true },
  );
  const lines = lineReader(child);
  const first = await lines.next();
  if (first.value !== 'listening') throw new Error(`node probe did not start: ${String(first.value)}`);
  // A listener that stopped (killed, or stopped by cleanup) yields no line: that is "no hello", never a crash.
  // One reader at a time: each call waits for the one before, so hellos come back in their order.
  let last: Promise<unknown> = Promise.resolve();
  const nextHello = () => {
    const next = last.then(() =>
      lines.next().then(
        (r) => (r.done ? undefined : (JSON.parse(r.value) as ProbeHello)),
        () => undefined,
      ),
    );
    last = next;
    return next;
  };
  return { port, nextHello, stop: () => void child.kill('SIGTERM') };
}

async function* lineReader(child: ResultPromise): AsyncGenerator<string> {
  let buf = '';
  for await (const chunk of child.stdout!) {
    buf += String(chunk);
    let i: number;
    while ((i = buf.indexOf('\n')) >= 0) {
      yield buf.slice(0, i);
      buf = buf.slice(i + 1);
    }
  }
}

// A TCP listener in the node namespace standing in for "the rest of the cluster": the guest connects to it through
// masquerade, and the address it sees proves the NAT (the pod's IP, not the guest's 10.0.2.2).
import { execa, type ResultPromise } from 'execa';

export interface NodeProbe {
  port: number;
  /** Resolves with the first connection's peer address and payload. */
  firstHello: Promise<{ from: string; text: string }>;
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

export async function startNodeProbe(nodeNs: string, nodeIp: string, port = 8080): Promise<NodeProbe> {
  const child: ResultPromise = execa(
    'ip',
    ['netns', 'exec', nodeNs, process.execPath, '-e', listener, String(port), nodeIp],
    {
      buffer: false,
      reject: false,
    },
  );
  const lines = lineReader(child);
  const first = await lines.next();
  if (first.value !== 'listening') throw new Error(`node probe did not start: ${String(first.value)}`);
  const firstHello = lines.next().then((r) => JSON.parse(String(r.value)) as { from: string; text: string });
  firstHello.catch(() => undefined);
  return { port, firstHello, stop: () => void child.kill('SIGTERM') };
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

// Test helper run inside a namespace (`ip netns exec NS node peer-server.mjs NAME PORT...`): every TCP
// connection is answered with "NAME peer=<remote address>" and closed. Prints "ready" once all ports listen.
import { createServer } from 'node:net';
import process from 'node:process';

const [name, ...ports] = process.argv.slice(2);
let listening = 0;
for (const port of ports) {
  const server = createServer((socket) => {
    const peer = (socket.remoteAddress ?? '').replace(/^::ffff:/, '');
    socket.end(`${name} port=${port} peer=${peer}\n`);
  });
  // '::' takes IPv4 too (as mapped addresses), so one socket serves both families.
  server.listen({ port: Number(port), host: '::' }, () => {
    listening += 1;
    if (listening === ports.length) process.stdout.write('ready\n');
  });
}

// Test helper run inside a namespace (`ip netns exec NS node peer-client.mjs ADDRESS PORT [udp]`): one TCP
// connection (or, with `udp`, one datagram), prints what the server sent and exits 0; exits 1 when refused,
// reset or unanswered within 3 s.
import { createSocket } from 'node:dgram';
import { connect, isIPv6 } from 'node:net';
import process from 'node:process';
import { setTimeout } from 'node:timers';

const [host, port, protocol] = process.argv.slice(2);
const fail = (err) => {
  process.stderr.write(`${err.message}\n`);
  process.exit(1);
};

if (protocol === 'udp') {
  const socket = createSocket(isIPv6(host) ? 'udp6' : 'udp4');
  setTimeout(() => fail(new Error('timeout')), 3000);
  socket.on('message', (msg) => {
    process.stdout.write(msg.toString());
    process.exit(0);
  });
  // A connected socket reports the pod's ICMP "port unreachable" as an error instead of waiting it out.
  socket.on('error', fail);
  socket.connect(Number(port), host, () => socket.send('ping'));
} else {
  let received = '';
  const socket = connect({ host, port: Number(port) });
  socket.setTimeout(3000, () => socket.destroy(new Error('timeout')));
  socket.on('data', (chunk) => {
    received += chunk.toString();
  });
  socket.on('end', () => {
    process.stdout.write(received);
    process.exit(received === '' ? 1 : 0);
  });
  socket.on('error', fail);
}

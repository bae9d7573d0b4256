// Test helper run inside a namespace (`ip netns exec NS node peer-server.mjs NAME PORT...`): every TCP
// connection is answered with "NAME port=PORT peer=<remote address>" and closed; a port written "udp:PORT"
// answers every datagram with "NAME udp port=PORT peer=<remote address>". Prints "ready" once all listen.
import { createSocket } from 'node:dgram';
import { createServer } from 'node:net';
import process from 'node:process';

const [name, ...ports] = process.argv.slice(2);
let listening = 0;
const ready = () => {
  listening += 1;
  if (listening === ports.length) process.stdout.write('ready\n');
};
const peerOf = (address) => (address ?? '').replace(/^::ffff:/, '');

for (const spec of ports) {
  if (spec.startsWith('udp:')) {
    const port = Number(spec.slice(4));
    // A udp6 socket without ipv6Only takes IPv4 too (as mapped addresses), like the TCP one below.
    const socket = createSocket({ type: 'udp6' });
    socket.on('message', (_msg, rinfo) => {
      socket.send(`${name} udp port=${port} peer=${peerOf(rinfo.address)}\n`, rinfo.port, rinfo.address);
    });
    socket.bind({ port, address: '::' }, ready);
    continue;
  }
  const server = createServer((socket) => {
    socket.end(`${name} port=${spec} peer=${peerOf(socket.remoteAddress)}\n`);
  });
  // '::' takes IPv4 too (as mapped addresses), so one socket serves both families.
  server.listen({ port: Number(spec), host: '::' }, ready);
}

// Runs inside the guest netns (ip netns exec): sends crafted datagrams from the DHCP client port and prints every
// datagram received back as one JSON line {replies: [hex...]} once `expect` replies arrived or `windowMs` passed.
// Usage: node guest-client.mjs JOB.json, JOB = {"family":4,"sends":[{"hex":"..","address":"10.0.2.255","port":67}],"expect":1,"windowMs":3000}
/* global process, Buffer, setTimeout */
import dgram from 'node:dgram';
import { readFileSync } from 'node:fs';

// The job comes in a file: a few thousand datagrams do not fit in argv.
const job = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const v6 = job.family === 6;
const sock = dgram.createSocket({ type: v6 ? 'udp6' : 'udp4', reuseAddr: true });
const replies = [];
const finish = () => {
  process.stdout.write(JSON.stringify({ replies }) + '\n');
  sock.close();
  process.exit(0);
};
sock.on('message', (msg) => {
  replies.push(msg.toString('hex'));
  if (job.expect > 0 && replies.length >= job.expect) finish();
});
sock.bind(v6 ? 546 : 68, v6 ? '::' : '0.0.0.0', async () => {
  if (!v6) sock.setBroadcast(true);
  for (const [i, s] of job.sends.entries()) {
    await new Promise((resolve) => sock.send(Buffer.from(s.hex, 'hex'), s.port, s.address, resolve));
    // Paced in bursts of 100 so the test measures the server's judgement, not the kernel's queue length.
    if (i % 100 === 99) await new Promise((resolve) => setTimeout(resolve, 20));
  }
  setTimeout(finish, job.windowMs);
});

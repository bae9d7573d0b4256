// Test helper run inside a namespace (`ip netns exec NS node peer-client.mjs ADDRESS PORT`): one TCP connection,
// prints what the server sent and exits 0; exits 1 when refused, reset or unanswered within 3 s.
import { connect } from 'node:net';
import process from 'node:process';

const [host, port] = process.argv.slice(2);
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
socket.on('error', (err) => {
  process.stderr.write(`${err.message}\n`);
  process.exit(1);
});

// Run by lifetime.test.ts: opens a connection, uses it, then either closes or unrefs it and returns
// without any timer. The process must then exit on its own: the event thread holds no JS handle.
// Mode `throw`: a listener throws, which must surface as an uncaught exception.
import { connect } from './index.js';

const mode = process.argv[2] ?? 'close';
const conn = await connect('test:///default');
conn.on('domainEvent', () => {
  if (mode === 'throw') throw new Error('listener boom');
});
const dom = await conn.lookupDomainByName('test');
await dom.suspend();
await dom.resume();
if (mode === 'close') await conn.close();
// Mode `throw` keeps the connection referenced, so the process lives until the suspend/resume events reach the
// listener: unref'd, the loop could end before they were delivered (exit 0 under load, seen in a fresh-clone run).
else if (mode === 'unref') conn.unref();
process.on('exit', (code) => console.log(`exit ${mode} ${code}`));

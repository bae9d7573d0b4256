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
else conn.unref();
process.on('exit', (code) => console.log(`exit ${mode} ${code}`));

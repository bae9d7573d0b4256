// Step 5 of SyncVMI against the in-memory connection: which domain states lead to create, resume or nothing.
import { beforeEach, describe, expect, it } from 'vitest';
import { FakeConnection, type FakeDomain } from '../../testing/fake-connection.js';
import { vmiJson } from '../../testing/handler-standin.js';
import { parseVmiRequest, type VmiView } from '../../vmi.js';
import { STATE } from '../state.js';
import { startIfDown } from './start.js';

let conn: FakeConnection;
let dom: FakeDomain;
let vmi: VmiView;

beforeEach(async () => {
  conn = await FakeConnection.open();
  vmi = parseVmiRequest(vmiJson('a'));
  dom = await conn.defineXML(`<domain><name>${vmi.domainName}</name></domain>`);
});

describe('startIfDown', () => {
  it('starts a domain that is off', async () => {
    await startIfDown(dom, vmi, new Set());
    expect(dom.stateCode).toBe(STATE.running);
  });

  it('starts paused, and remembers the user pause, when the VMI asks for startStrategy Paused', async () => {
    const paused = new Set<string>();
    await startIfDown(dom, { ...vmi, startStrategy: 'Paused' }, paused);
    expect(dom.stateCode).toBe(STATE.paused);
    expect([...paused]).toEqual([vmi.uid]);
  });

  it('leaves a running domain alone: a re-sync changes nothing', async () => {
    await dom.create();
    dom.calls.length = 0;
    await startIfDown(dom, vmi, new Set());
    expect(dom.calls).toEqual(['getState']);
  });

  it('resumes a domain paused by something other than the user, keeps a user pause', async () => {
    await dom.create({ paused: true });
    await startIfDown(dom, vmi, new Set([vmi.uid]));
    expect(dom.stateCode).toBe(STATE.paused);
    await startIfDown(dom, vmi, new Set());
    expect(dom.stateCode).toBe(STATE.running);
  });

  it.each(['Running', 'Failed', 'Succeeded'])('does not start a stopped domain of a VMI in phase %s', async (phase) => {
    await startIfDown(dom, { ...vmi, phase }, new Set());
    expect(dom.stateCode).toBe(STATE.shutoff);
    expect(dom.calls).not.toContain('create');
  });

  it('passes on a failing create', async () => {
    conn.failNext('create', 'INTERNAL_ERROR');
    await expect(startIfDown(dom, vmi, new Set())).rejects.toMatchObject({ codeName: 'INTERNAL_ERROR' });
  });
});

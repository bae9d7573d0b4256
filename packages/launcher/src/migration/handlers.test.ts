// MigrateVirtualMachine through the cmd server's RPC table (issue 36 item 7): options libvirt or QEMU would refuse
// only once migrating are answered success:false naming the field and its range, and no migration record starts.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildCmdImplementation } from '../cmd-server/rpc-table.js';
import { FakeConnection } from '../testing/fake-connection.js';
import { testSyncEnv, type TestSyncEnv } from '../testing/sync-env.js';
import { migrationHandlers } from './handlers.js';

const vmiJson = Buffer.from(
  JSON.stringify({
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachineInstance',
    metadata: { name: 'demo', namespace: 'default', uid: 'uid-test' },
    spec: { domain: { memory: { guest: '128Mi' }, devices: {} } },
    status: { migrationState: { migrationUid: 'm-1' } },
  }),
);

let root = '';
let env: TestSyncEnv;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'vlt-launcher-migrate-rpc-'));
  env = testSyncEnv(await FakeConnection.open(), root);
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

function migrate(options: object): Promise<unknown> {
  const impl = buildCmdImplementation(migrationHandlers(env));
  const rpc = impl.migrateVirtualMachine as (call: unknown, cb: (e: unknown, r: unknown) => void) => void;
  return new Promise((resolve, reject) => {
    const request = { vmi: { vmiJson }, options: Buffer.from(JSON.stringify(options)) };
    rpc({ request }, (e, r) => (e ? reject(e) : resolve(r)));
  });
}

describe('MigrateVirtualMachine refuses absurd options at the RPC', () => {
  it.each([
    [{ Bandwidth: '1000000Ei' }, 'MigrationOptions.Bandwidth: "1000000Ei" is out of range (0 to 8796093022207 MiB/s)'],
    [
      { ProgressTimeout: 1e300 },
      'MigrationOptions.ProgressTimeout: 1e+300 is out of range (0 to 9007199254740991 seconds)',
    ],
    [
      { ParallelMigrationThreads: 1e9 },
      'MigrationOptions.ParallelMigrationThreads: 1000000000 is out of range (1 to 255 connections)',
    ],
  ])('%j: success:false naming the field, no migration started', async (options, message) => {
    expect(await migrate(options)).toEqual({ success: false, message });
    expect(env.metadata.get().Migration).toBeUndefined();
  });
});

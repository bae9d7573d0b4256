// MigrationSource's bookkeeping without libvirt: what it refuses, the record it starts, a second call for the same
// migration, and Cancel when nothing migrates. The migration itself runs in tools/pod's migrate.stack.test.ts.
import { describe, expect, it } from 'vitest';
import type { Connection } from '../adapters/libvirt.js';
import { MetadataCache } from '../domain/metadata.js';
import { parseVmiRequest } from '../vmi.js';
import type { MigrationOptions } from './options.js';
import { MigrationRefusedError, MigrationSource } from './source.js';

const options: MigrationOptions = {
  bandwidthMiB: 0,
  progressTimeout: 150,
  completionTimeoutPerGiB: 800,
  maxDowntimeMs: 300,
  unsafeMigration: false,
  allowAutoConverge: false,
  allowPostCopy: false,
  allowWorkloadDisruption: false,
  stallDetectorRequested: false,
};

function vmi(status?: object) {
  return parseVmiRequest(
    Buffer.from(
      JSON.stringify({
        apiVersion: 'kubevirt.io/v1',
        kind: 'VirtualMachineInstance',
        metadata: { name: 'demo', namespace: 'default', uid: 'u-1' },
        spec: { domain: { memory: { guest: '128Mi' }, devices: {} } },
        ...(status ? { status } : {}),
      }),
    ),
  );
}

/** A connection whose lookups fail: the background migration ends at once with that error. */
const noDomain = { lookupDomainByName: () => Promise.reject(new Error('no domain here')) } as unknown as Connection;

function source(metadata = new MetadataCache()) {
  return new MigrationSource({
    conn: () => noDomain,
    metadata,
    shareDir: '/s',
    sessionMode: false,
    ephemeralDiskBytes: async () => 0,
  });
}

describe('MigrationSource', () => {
  it('refuses a VMI without migrationState, as KubeVirt does', async () => {
    await expect(source().start(vmi(), options)).rejects.toThrow(MigrationRefusedError);
    await expect(source().start(vmi(), options)).rejects.toThrow(/until migrationState is ready/);
  });

  it('starts the record, ends it failed with the reason, and refuses the same migration afterwards', async () => {
    const metadata = new MetadataCache();
    const src = source(metadata);
    const v = vmi({ migrationState: { migrationUid: 'm-1' }, migrationMethod: 'BlockMigration' });
    await src.start(v, options);
    expect(metadata.get().Migration).toMatchObject({ UID: 'm-1', Mode: 'PreCopy' });
    expect(metadata.get().Migration?.StartTimestamp).toBeTruthy();
    await src.running;
    expect(metadata.get().Migration).toMatchObject({ UID: 'm-1', Failed: true, FailureReason: 'no domain here' });
    expect(metadata.get().Migration?.EndTimestamp).toBeTruthy();
    await expect(src.start(v, options)).rejects.toThrow(/migration job m-1 already executed/);
  });

  it("takes the source state's migration UID when there is one", async () => {
    const metadata = new MetadataCache();
    await source(metadata).start(
      vmi({ migrationState: { migrationUid: 'm-1', sourceState: { migrationUid: 's-9' } } }),
      options,
    );
    expect(metadata.get().Migration?.UID).toBe('s-9');
  });

  it('ignores Cancel when nothing migrates', async () => {
    const metadata = new MetadataCache();
    await source(metadata).cancel(vmi());
    expect(metadata.get().Migration).toBeUndefined();
  });

  it("refuses a second migration while one runs, keeping the first one's record, outcome and Cancel", async () => {
    // The first migration's domain lookup waits on a gate, so it is still running when the second request comes.
    let release: (err: Error) => void = () => undefined;
    const gate = new Promise<never>((_resolve, reject) => (release = reject));
    gate.catch(() => undefined);
    let lookups = 0;
    const gated = {
      lookupDomainByName: () => {
        lookups += 1;
        return gate;
      },
    } as unknown as Connection;
    const metadata = new MetadataCache();
    const src = new MigrationSource({
      conn: () => gated,
      metadata,
      shareDir: '/s',
      sessionMode: false,
      ephemeralDiskBytes: async () => 0,
    });
    const first = vmi({ migrationState: { migrationUid: 'm-1' } });
    await src.start(first, options);
    const running = src.running;
    await expect(src.start(vmi({ migrationState: { migrationUid: 'm-2' } }), options)).rejects.toThrow(
      /^migration job m-2 refused: migration job m-1 is still running \(started at /,
    );
    expect(src.running).toBe(running);
    expect(metadata.get().Migration).toMatchObject({ UID: 'm-1', Mode: 'PreCopy' });
    expect(metadata.get().Migration?.EndTimestamp).toBeUndefined();
    expect(metadata.get().Migration?.Failed).toBeUndefined();
    // Cancel of the first still reaches its domain (it is not "ignored: vmi is not migrating").
    const lookupsBefore = lookups;
    const cancelled = src.cancel(first);
    release(new Error('no domain here'));
    await expect(cancelled).rejects.toThrow('no domain here');
    expect(lookups).toBe(lookupsBefore + 1);
    await running;
    expect(metadata.get().Migration).toMatchObject({ UID: 'm-1', Failed: true, FailureReason: 'no domain here' });
  });
});

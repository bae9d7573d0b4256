import { describe, expect, it } from 'vitest';
import { MigrationOptionsError, parseMigrationOptions } from './options.js';

const enc = (o: unknown) => Buffer.from(JSON.stringify(o));

describe('parseMigrationOptions (the handler JSON, Go field names)', () => {
  it('reads every field the handler sends', () => {
    const o = parseMigrationOptions(
      enc({
        Bandwidth: '64Mi',
        ProgressTimeout: 150,
        CompletionTimeoutPerGiB: 800,
        MaxDowntimeMs: 300,
        UnsafeMigration: false,
        AllowAutoConverge: true,
        AllowPostCopy: true,
        ParallelMigrationThreads: 4,
        AllowWorkloadDisruption: true,
        Compression: 'zstd',
      }),
    );
    expect(o).toEqual({
      bandwidthMiB: 64,
      progressTimeout: 150,
      completionTimeoutPerGiB: 800,
      maxDowntimeMs: 300,
      unsafeMigration: false,
      allowAutoConverge: true,
      allowPostCopy: true,
      allowWorkloadDisruption: true,
      parallelMigrationThreads: 4,
      compression: 'zstd',
      stallDetectorRequested: false,
    });
  });

  it('defaults what is left out, and rounds the bandwidth up to whole MiB ("0" = unlimited)', () => {
    const o = parseMigrationOptions(enc({ Bandwidth: '1500Ki' }));
    expect(o.bandwidthMiB).toBe(2);
    expect(o.progressTimeout).toBe(0);
    expect(o.parallelMigrationThreads).toBeUndefined();
    expect(parseMigrationOptions(enc({ Bandwidth: '0' })).bandwidthMiB).toBe(0);
  });

  it('drops an unknown compression method and notes a stall-detector request', () => {
    const o = parseMigrationOptions(enc({ Compression: 'lz4', StallDetectorOptions: { StallMargin: 5 } }));
    expect(o.compression).toBeUndefined();
    expect(o.stallDetectorRequested).toBe(true);
  });

  it.each([
    [{ Bandwidth: 'fast' }, 'Bandwidth'],
    [{ ProgressTimeout: -1 }, 'ProgressTimeout'],
    [{ CompletionTimeoutPerGiB: '800' }, 'CompletionTimeoutPerGiB'],
    [{ AllowPostCopy: 'yes' }, 'AllowPostCopy'],
    [{ ParallelMigrationThreads: 0 }, 'ParallelMigrationThreads'],
    [{ Compression: 3 }, 'Compression'],
  ])('refuses %j with an error naming %s', (json, field) => {
    const err = (() => {
      try {
        parseMigrationOptions(enc(json));
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(MigrationOptionsError);
    expect((err as MigrationOptionsError).field).toBe(field);
    expect((err as Error).message).toContain(field);
  });

  it('refuses a missing or unreadable options object as KubeVirt does', () => {
    expect(() => parseMigrationOptions(undefined)).toThrow(/not present/);
    expect(() => parseMigrationOptions(Buffer.from('{'))).toThrow(/no valid migration options/);
    expect(() => parseMigrationOptions(enc([1]))).toThrow(MigrationOptionsError);
  });
});

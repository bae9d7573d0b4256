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

  // Issue 36 item 7: parseable but absurd values used to be accepted and fail (or never end) once migrating. The
  // bounds: KubeVirt's MigrationOptions types (pkg/virt-handler/cmd-client/client.go: int64 timeouts), libvirt's
  // QEMU_DOMAIN_MIG_BANDWIDTH_MAX (INT64_MAX bytes/s as MiB/s) and QEMU's downtime-limit and multifd-channels.
  it.each([
    [{ Bandwidth: '1000000Ei' }, 'Bandwidth', 'out of range (0 to 8796093022207 MiB/s)'],
    [{ Bandwidth: '8Ei' }, 'Bandwidth', 'out of range'],
    [{ ProgressTimeout: 1e300 }, 'ProgressTimeout', 'MigrationOptions.ProgressTimeout: 1e+300 is out of range'],
    [{ CompletionTimeoutPerGiB: 1e300 }, 'CompletionTimeoutPerGiB', 'is out of range (0 to 9007199254740991 seconds)'],
    [{ MaxDowntimeMs: 2_000_001 }, 'MaxDowntimeMs', 'is out of range (0 to 2000000 ms'],
    [
      { ParallelMigrationThreads: 1e9 },
      'ParallelMigrationThreads',
      '1000000000 is out of range (1 to 255 connections)',
    ],
  ])('refuses the absurd %j, naming %s and its range', (json, field, message) => {
    let err: unknown;
    try {
      parseMigrationOptions(enc(json));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(MigrationOptionsError);
    expect((err as MigrationOptionsError).field).toBe(field);
    expect((err as Error).message).toContain(message);
  });

  it('accepts the largest values libvirt and QEMU take', () => {
    const o = parseMigrationOptions(
      enc({
        Bandwidth: String(8796093022207 * 1024 * 1024),
        ProgressTimeout: Number.MAX_SAFE_INTEGER,
        MaxDowntimeMs: 2_000_000,
        ParallelMigrationThreads: 255,
      }),
    );
    expect(o).toMatchObject({
      bandwidthMiB: 8796093022207,
      progressTimeout: Number.MAX_SAFE_INTEGER,
      maxDowntimeMs: 2_000_000,
      parallelMigrationThreads: 255,
    });
  });

  it('refuses a missing or unreadable options object as KubeVirt does', () => {
    expect(() => parseMigrationOptions(undefined)).toThrow(/not present/);
    expect(() => parseMigrationOptions(Buffer.from('{'))).toThrow(/no valid migration options/);
    expect(() => parseMigrationOptions(enc([1]))).toThrow(MigrationOptionsError);
  });
});

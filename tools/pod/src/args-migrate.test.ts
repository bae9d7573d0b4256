import { describe, expect, it } from 'vitest';
import { parseRunArgs, UsageError } from './args.js';

describe('parseRunArgs --migrate*', () => {
  it('has no migration without --migrate', () => {
    expect(parseRunArgs(['run', 'v.yaml']).migration).toBeUndefined();
  });

  it('reads the migration switches with KubeVirt-like defaults', () => {
    expect(parseRunArgs(['run', 'v.yaml', '--migrate']).migration).toEqual({
      afterSeconds: 0,
      untilMigrated: false,
      completionTimeoutPerGiB: 800,
    });
    const a = parseRunArgs([
      'run',
      'v.yaml',
      '--migrate',
      '--migrate-after',
      '2.5',
      '--until-migrated',
      '--migrate-bandwidth',
      '8Mi',
      '--migrate-completion-timeout-per-gib',
      '1',
      '--migrate-cancel-after',
      '3',
    ]);
    expect(a.migration).toEqual({
      afterSeconds: 2.5,
      untilMigrated: true,
      bandwidth: '8Mi',
      completionTimeoutPerGiB: 1,
      cancelAfterSeconds: 3,
    });
  });

  it.each([
    [['run', 'a', '--until-migrated'], /--until-migrated needs --migrate/],
    [['run', 'a', '--migrate-bandwidth', '8Mi'], /needs --migrate/],
    [['run', 'a', '--migrate', '--until-lease'], /exclude each other/],
    [['run', 'a', '--migrate', '--migrate-after=-1'], /--migrate-after -1: not a number >= 0/],
    [['run', 'a', '--migrate', '--migrate-bandwidth', 'fast'], /--migrate-bandwidth fast/],
    [['run', 'a', '--migrate', '--migrate-completion-timeout-per-gib', '0'], /not a positive number/],
    [['run', 'a', '--migrate', '--migrate-cancel-after', 'x'], /--migrate-cancel-after x/],
  ])('refuses %j', (argv, message) => {
    expect(() => parseRunArgs(argv)).toThrow(UsageError);
    expect(() => parseRunArgs(argv)).toThrow(message);
  });
});

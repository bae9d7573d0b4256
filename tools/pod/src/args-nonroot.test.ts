import { describe, expect, it } from 'vitest';
import { parseRunArgs, UsageError } from './args.js';
import { dropToPodUser, POD_UID } from './non-root.js';

describe('--non-root / --root', () => {
  it('runs the pod as uid 107 by default, as KubeVirt does; --root gives the all-root pod', () => {
    expect(parseRunArgs(['run', 'v.yaml']).nonRoot).toBe(true);
    expect(parseRunArgs(['run', 'v.yaml', '--non-root']).nonRoot).toBe(true);
    expect(parseRunArgs(['run', 'v.yaml', '--root']).nonRoot).toBe(false);
  });

  it('refuses both at once', () => {
    expect(() => parseRunArgs(['run', 'v.yaml', '--root', '--non-root'])).toThrow(UsageError);
    expect(() => parseRunArgs(['run', 'v.yaml', '--root', '--non-root'])).toThrow(/--root and --non-root/);
  });

  it('drops to 107 with NET_BIND_SERVICE alone and no privilege escalation before the monitor', () => {
    const argv = dropToPodUser();
    expect(argv[0]).toBe('setpriv');
    expect(argv).toEqual(
      expect.arrayContaining([
        `--reuid=${POD_UID}`,
        `--regid=${POD_UID}`,
        '--clear-groups',
        '--ambient-caps=-all,+net_bind_service',
        '--bounding-set=-all,+net_bind_service',
        '--no-new-privs',
      ]),
    );
    expect(argv.at(-1)).toBe('--');
  });
});

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { launcherLogVerbosity, vsockLocalNamespace } from './launcher-debug-facts.js';

describe('launcherLogVerbosity (VIRT_LAUNCHER_LOG_VERBOSITY, read as KubeVirt reads it)', () => {
  const of = (value: string | undefined) => launcherLogVerbosity({ VIRT_LAUNCHER_LOG_VERBOSITY: value });

  it('an integer is the verbosity, sign and leading zeros allowed', () => {
    expect(of('6')).toBe(6);
    expect(of('0')).toBe(0);
    expect(of('+7')).toBe(7);
    expect(of('-1')).toBe(-1);
    expect(of('06')).toBe(6);
  });

  it('unset, empty or not a decimal integer: no verbosity', () => {
    expect(launcherLogVerbosity({})).toBeUndefined();
    for (const text of ['', ' 6', '6 ', '6.0', '0x10', '1e3', 'six', '--6']) expect(of(text)).toBeUndefined();
  });

  it('beyond int32 is clamped, beyond int64 (an Atoi error) is no verbosity', () => {
    expect(of('4294967296')).toBe(2 ** 31 - 1);
    expect(of('-4294967296')).toBe(-(2 ** 31));
    expect(of('99999999999999999999')).toBeUndefined();
  });
});

describe('vsockLocalNamespace (<proc>/sys/net/vsock/ns_mode)', () => {
  const roots: string[] = [];
  afterAll(() => roots.forEach((r) => rmSync(r, { recursive: true, force: true })));

  function procWith(mode: string | undefined): string {
    const root = mkdtempSync(join(tmpdir(), 'vlt-launcher-proc-'));
    roots.push(root);
    if (mode !== undefined) {
      mkdirSync(join(root, 'sys/net/vsock'), { recursive: true });
      writeFileSync(join(root, 'sys/net/vsock/ns_mode'), mode);
    }
    return root;
  }

  it('"local" (with the kernel\'s newline) is local mode', async () => {
    expect(await vsockLocalNamespace(procWith('local\n'))).toBe(true);
  });

  it('"global", another value or no file at all is global mode', async () => {
    expect(await vsockLocalNamespace(procWith('global\n'))).toBe(false);
    expect(await vsockLocalNamespace(procWith('locals\n'))).toBe(false);
    expect(await vsockLocalNamespace(procWith(undefined))).toBe(false);
  });
});

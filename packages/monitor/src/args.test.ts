import { describe, expect, it } from 'vitest';
import { parseArgs, resolveVerbosity, wantsHelp, DEFAULT_COMMAND, DEFAULT_CONTAINER_DISK_DIR } from './args.js';
import { MonitorUsageError } from './errors.js';

describe('parseArgs, explicit form (-- COMMAND)', () => {
  it('runs COMMAND with its ARGS and consumes the monitor flags', () => {
    const parsed = parseArgs(['--keep-after-failure', '--container-disk-dir', '/cd', '--', 'sh', '-c', 'exit 7'], {});
    expect(parsed).toMatchObject({
      command: 'sh',
      args: ['-c', 'exit 7'],
      keepAfterFailure: true,
      containerDiskDir: '/cd',
      qemuStopTimeoutSeconds: 10,
    });
  });

  it('passes flags it does not own (the launcher grace period) to COMMAND after ARGS', () => {
    const parsed = parseArgs(['--grace-period-seconds', '45', '--', 'virt-launcher', '--qemu-timeout', '5m'], {});
    expect(parsed.command).toBe('virt-launcher');
    expect(parsed.args).toEqual(['--qemu-timeout', '5m', '--grace-period-seconds', '45']);
  });

  it('keeps an interpreter COMMAND working: its script stays first', () => {
    const parsed = parseArgs(['--grace-period-seconds', '45', '--', 'node', 'launcher.js', '--name', 'x'], {});
    expect(parsed.command).toBe('node');
    expect(parsed.args).toEqual(['launcher.js', '--name', 'x', '--grace-period-seconds', '45']);
  });

  it('answers --help only before the separator', () => {
    expect(wantsHelp(['--help'])).toBe(true);
    expect(wantsHelp(['-h', '--', 'x'])).toBe(true);
    expect(wantsHelp(['--', 'virt-launcher', '--help'])).toBe(false);
  });

  it('does not parse flags after the separator', () => {
    const parsed = parseArgs(['--', 'virt-launcher', '--keep-after-failure'], {});
    expect(parsed.keepAfterFailure).toBe(false);
    expect(parsed.args).toEqual(['--keep-after-failure']);
  });

  it('takes the container-disk dir from the environment, the flag wins', () => {
    const env = { VIRT_LAUNCHER_MONITOR_CONTAINER_DISK_DIR: '/env' };
    expect(parseArgs(['--', 'x'], env).containerDiskDir).toBe('/env');
    expect(parseArgs(['--container-disk-dir=/flag', '--', 'x'], env).containerDiskDir).toBe('/flag');
    expect(parseArgs(['--', 'x'], {}).containerDiskDir).toBe(DEFAULT_CONTAINER_DISK_DIR);
  });

  it('rejects a missing COMMAND, a flag without value and a bad number', () => {
    expect(() => parseArgs(['--'], {})).toThrow(MonitorUsageError);
    expect(() => parseArgs(['--container-disk-dir'], {})).toThrow(MonitorUsageError);
    expect(() => parseArgs(['--qemu-stop-timeout-seconds', 'soon', '--', 'x'], {})).toThrow(MonitorUsageError);
  });
});

describe("parseArgs, KubeVirt's form (no --)", () => {
  it('runs /usr/bin/virt-launcher with every argument except the bare --keep-after-failure', () => {
    const argv = [
      '--qemu-timeout',
      '240s',
      '--keep-after-failure',
      '--container-disk-dir',
      '/cd',
      '--uid',
      'abc',
      '-v',
      '4',
    ];
    const parsed = parseArgs(argv, {});
    expect(parsed.command).toBe(DEFAULT_COMMAND);
    expect(parsed.args).toEqual(['--qemu-timeout', '240s', '--container-disk-dir', '/cd', '--uid', 'abc', '-v', '4']);
    expect(parsed).toMatchObject({ keepAfterFailure: true, containerDiskDir: '/cd', uid: 'abc', verbosity: 4 });
  });

  it('lets --keep-after-failure=true through to the launcher (as KubeVirt does) while honouring it', () => {
    const parsed = parseArgs(['--keep-after-failure=true', '--name', 'vmi'], {});
    expect(parsed.keepAfterFailure).toBe(true);
    expect(parsed.args).toEqual(['--keep-after-failure=true', '--name', 'vmi']);
  });

  it('keeps monitor-only flags out of its own parsing so they reach the launcher untouched', () => {
    const parsed = parseArgs(['--qemu-stop-timeout-seconds', '3'], {});
    expect(parsed.qemuStopTimeoutSeconds).toBe(10);
    expect(parsed.args).toEqual(['--qemu-stop-timeout-seconds', '3']);
  });
});

describe('resolveVerbosity', () => {
  it('lets an integer in the environment override -v', () => {
    expect(resolveVerbosity(2, { VIRT_LAUNCHER_LOG_VERBOSITY: '6' })).toEqual({ verbosity: 6 });
    expect(resolveVerbosity(2, {})).toEqual({ verbosity: 2 });
  });

  it('warns and keeps -v when the environment value is not an integer', () => {
    const result = resolveVerbosity(3, { VIRT_LAUNCHER_LOG_VERBOSITY: 'loud' });
    expect(result.verbosity).toBe(3);
    expect(result.warning).toMatch(/^failed to set log verbosity/);
  });
});

import { describe, expect, it } from 'vitest';
import { parseDuration, parseFlags } from './flags.js';
import { setLogSink } from './log.js';
import { resolvePaths } from './paths.js';

describe('flags', () => {
  it('parses KubeVirt flags in both pflag spellings', () => {
    const f = parseFlags(
      ['--name', 'vm', '--namespace=ns', '--qemu-timeout', '245s', '--grace-period-seconds', '45', '--allow-emulation'],
      {},
    );
    expect(f).toMatchObject({ name: 'vm', namespace: 'ns', qemuTimeoutMs: 245_000, gracePeriodSeconds: 45 });
    expect(f.allowEmulation).toBe(true);
    expect(parseFlags(['--allow-emulation=false'], {}).allowEmulation).toBe(false);
  });

  it('applies KubeVirt defaults and the env verbosity override', () => {
    const f = parseFlags([], { VIRT_LAUNCHER_LOG_VERBOSITY: '5' });
    expect(f.qemuTimeoutMs).toBe(180_000);
    expect(f.kubevirtShareDir).toBe('/var/run/kubevirt');
    expect(f.verbosity).toBe(5);
    expect(f.runRoot).toBe('/');
  });

  it('a VIRT_LAUNCHER_LOG_VERBOSITY that is not an integer only warns and keeps --v', () => {
    const lines: string[] = [];
    setLogSink((l) => lines.push(l));
    try {
      expect(parseFlags(['--v', '4'], { VIRT_LAUNCHER_LOG_VERBOSITY: 'loud' }).verbosity).toBe(4);
      expect(parseFlags([], { VIRT_LAUNCHER_LOG_VERBOSITY: '' }).verbosity).toBe(2);
    } finally {
      setLogSink((l) => process.stderr.write(l + '\n'));
    }
    const warned = lines.map((l) => JSON.parse(l) as { level: string; msg: string });
    expect(warned[0]).toMatchObject({ level: 'warning' });
    expect(warned[0]?.msg).toContain('got loud instead');
    expect(warned).toHaveLength(2);
  });

  it('parses Go durations and rejects garbage', () => {
    expect(parseDuration('1m30s')).toBe(90_000);
    expect(parseDuration('1h')).toBe(3_600_000);
    expect(parseDuration('250ms')).toBe(250);
    expect(() => parseDuration('soon')).toThrow(/invalid duration/);
    expect(() => parseFlags(['--grace-period-seconds', 'x'], {})).toThrow(/grace-period-seconds/);
  });

  it('resolves every KubeVirt path under --run-root', () => {
    const p = resolvePaths({ ...parseFlags(['--uid', 'u1'], {}), runRoot: '/tmp/r' });
    expect(p.initSocket).toBe('/tmp/r/var/run/kubevirt/sockets/launcher-init-sock');
    expect(p.readySocket).toBe('/tmp/r/var/run/kubevirt/sockets/launcher-sock');
    expect(p.notifySocket).toBe('/tmp/r/var/run/kubevirt/domain-notify-pipe.sock');
    expect(p.vmiPrivateDir).toBe('/tmp/r/var/run/kubevirt-private/u1');
    expect(p.diskDataDir).toBe('/tmp/r/var/run/kubevirt-ephemeral-disks/disk-data');
    expect(resolvePaths(parseFlags([], {})).libvirtRunDir).toBe('/var/run/libvirt');
  });
});

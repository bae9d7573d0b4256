// The command runner every ip / nft / sysctl call goes through, against real commands any user can run.
import { describe, expect, it } from 'vitest';
import { CommandError } from './errors.js';
import { run } from './exec.js';

describe('run', () => {
  it('resolves to stdout, newlines kept, and feeds the input on stdin', async () => {
    expect(await run('cat', [], 'line one\nline two\n')).toBe('line one\nline two\n');
    expect(await run('printf', ['%s|', 'a b', 'c'])).toBe('a b|c|');
  });

  it('closes stdin when there is no input, so a reader sees end of file at once', async () => {
    expect(await run('cat', [])).toBe('');
  });

  it('a non-zero exit is a CommandError with the exit status and stderr', async () => {
    const err = (await run('sh', ['-c', 'echo partial; echo "it broke" >&2; exit 3']).catch((e: unknown) => e)) as
      CommandError | undefined;
    expect(err).toBeInstanceOf(CommandError);
    expect(err).toMatchObject({ command: 'sh -c echo partial; echo "it broke" >&2; exit 3', exitCode: 3 });
    expect(err!.stderr).toBe('it broke\n');
    expect(err!.message).toContain('(exit 3): it broke');
  });

  it('a command that cannot start has no exit status and says why', async () => {
    const err = (await run('/nonexistent-vlt/vlt-netsetup-no-such-command', ['x']).catch(
      (e: unknown) => e,
    )) as CommandError;
    expect(err).toBeInstanceOf(CommandError);
    expect(err.exitCode).toBeUndefined();
    expect(err.stderr).toMatch(/ENOENT/);
  });

  it('a command killed by a signal names the signal', async () => {
    const err = (await run('sh', ['-c', 'kill -TERM $$']).catch((e: unknown) => e)) as CommandError;
    expect(err).toBeInstanceOf(CommandError);
    expect(err.exitCode).toBeUndefined();
    expect(err.stderr).toBe('killed by SIGTERM');
  });

  it('a command that exits without reading a large input fails by its status, not by EPIPE', async () => {
    const err = (await run('sh', ['-c', 'exit 4'], 'x'.repeat(1 << 20)).catch((e: unknown) => e)) as CommandError;
    expect(err).toBeInstanceOf(CommandError);
    expect(err.exitCode).toBe(4);
  });
});

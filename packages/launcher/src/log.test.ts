// The bundled launcher holds log.ts twice (dist/cli.js and dist/launcher-main.cjs): the settings the CLI makes
// through one copy must hold for lines logged through the other.
import { afterEach, describe, expect, it } from 'vitest';
import { log, setLogSink, setVerbosity } from './log.js';
import type * as LogModule from './log.js';

const stderrSink = (line: string): void => void process.stderr.write(line + '\n');

afterEach(() => {
  setVerbosity(2);
  setLogSink(stderrSink);
});

describe('launcher log settings', () => {
  it('are shared by a second copy of the module (as in the second bundle file)', async () => {
    // A query makes the loader evaluate the module a second time, with its own module state.
    const specifier = './log.js?second-copy';
    const second = (await import(/* @vite-ignore */ specifier)) as typeof LogModule;
    expect(second.log).not.toBe(log);
    const lines: string[] = [];
    setLogSink((l) => lines.push(l));
    setVerbosity(4);
    second.log.debug('from the second copy');
    second.setVerbosity(2);
    log.debug('not at verbosity 2');
    expect(lines.map((l) => (JSON.parse(l) as { msg: string }).msg)).toEqual(['from the second copy']);
  });
});

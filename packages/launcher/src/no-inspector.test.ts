import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const here = dirname(fileURLToPath(import.meta.url));
const moduleUrl = pathToFileURL(join(here, '../dist/no-inspector.js')).href;

/** Runs a Node process that signals itself with SIGUSR1 and prints whether its inspector opened (on a free port). */
function inspectorAfterSigusr1(preload: boolean): string {
  const script = `
    ${preload ? `await import(${JSON.stringify(moduleUrl)});` : ''}
    const inspector = await import('node:inspector');
    process.kill(process.pid, 'SIGUSR1');
    setTimeout(() => { console.log(inspector.url() ?? 'closed'); inspector.close(); }, 300);`;
  const r = spawnSync(process.execPath, ['--inspect-port=0', '--input-type=module', '-e', script], {
    encoding: 'utf8',
    timeout: 10_000,
  });
  return r.stdout.trim();
}

describe('SIGUSR1 opens no inspector', () => {
  it('control: a plain Node process opens its inspector on SIGUSR1', () => {
    expect(inspectorAfterSigusr1(false)).toMatch(/^ws:\/\/127\.0\.0\.1:/);
  });

  it('with the module loaded the inspector stays closed', () => {
    expect(inspectorAfterSigusr1(true)).toBe('closed');
  });

  it('the CLI imports it before anything else', () => {
    const firstImport = /^import .*$/m.exec(readFileSync(join(here, 'cli.ts'), 'utf8'))?.[0];
    expect(firstImport).toBe("import './no-inspector.js';");
  });
});

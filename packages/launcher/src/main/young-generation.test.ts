import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

// The module as the CLI loads it: the build (the tests of this package run after `npm run build`).
const built = pathToFileURL(join(import.meta.dirname, '../../dist/main/young-generation.js')).href;

// A child Node keeps about 150k small objects alive across many scavenges (as loading gRPC, the protos and the
// converter does at start-up) and prints the young generation's size before and after.
const workload = `
import v8 from 'node:v8';
if (process.argv[1]) await import(process.argv[1]);
const newSpace = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size;
const initial = newSpace();
const kept = [];
for (let round = 0; round < 20; round++) {
  const batch = [];
  for (let i = 0; i < 50000; i++) batch.push({ i, s: 'x' + i });
  kept.push(batch);
  if (kept.length > 3) kept.shift();
}
process.stdout.write(JSON.stringify({ initial, after: newSpace() }));
`;

function youngGeneration(preload?: string): { initial: number; after: number } {
  const args = ['--input-type=module', '-e', workload, ...(preload ? [preload] : [])];
  return JSON.parse(execFileSync(process.execPath, args, { encoding: 'utf8' })) as { initial: number; after: number };
}

describe('the launcher keeps V8 young generation at its initial size', () => {
  it('grows many times over without the module (the workload would show the saving)', () => {
    const { initial, after } = youngGeneration();
    expect(after).toBeGreaterThanOrEqual(8 * initial);
  });

  it('stays within twice its initial size once the module is loaded', () => {
    const { initial, after } = youngGeneration(built);
    expect(after).toBeLessThanOrEqual(2 * initial);
  });

  it('is loaded by the CLI before any other module of the launcher', () => {
    const imports = readFileSync(join(import.meta.dirname, '../cli.ts'), 'utf8').match(/^import .*$/gm) ?? [];
    expect(imports.slice(0, 2)).toEqual([
      "import '@virt-launcher/shared/no-inspector';",
      "import './main/young-generation.js';",
    ]);
  });
});

// The package graph of CONTRIBUTING.md is enforced by lint (@nx/enforce-module-boundaries in eslint.config.js).
// Each case lints one import as if it were a file of the named package, through ESLint's API, so nothing is
// written into another package's tree: a forbidden edge must fail lint, an allowed one must pass. It lives
// here because contracts are the one package every role may depend on.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const eslint = new ESLint({ cwd: root });
const RULE = '@nx/enforce-module-boundaries';

// The rule reads nx's cached project graph (and skips itself when there is none); `nx run-many -t lint`
// refreshes that cache first, and so does this, so the cases see the tags package.json files carry now.
beforeAll(() => {
  execFileSync('npx', ['--no-install', 'nx', 'show', 'projects'], { cwd: root, stdio: 'ignore' });
}, 120_000);

/** The messages of the boundary rule for `import { x } from '<target>'` in `<dir>/src/graph-probe.ts`. */
async function boundaryErrors(dir: string, target: string): Promise<string[]> {
  const code = `import { x } from '${target}';\nexport const y = x;\n`;
  const [result] = await eslint.lintText(code, { filePath: `${root}/${dir}/src/graph-probe.ts` });
  return result!.messages.filter((m) => m.ruleId === RULE).map((m) => m.message);
}

const forbidden: [string, string][] = [
  ['packages/dhcp', '@virt-launcher/netsetup'],
  ['packages/netsetup', '@virt-launcher/dhcp'],
  ['packages/converter', '@virt-launcher/libvirt'],
  ['packages/monitor', '@virt-launcher/libvirt'],
  ['packages/ephemeral-disk', '@virt-launcher/launcher'],
  ['packages/libvirt', '@virt-launcher/converter'],
  // Contracts depend on nothing of ours (here the rule also names the cycle this edge would close).
  ['packages/contracts', '@virt-launcher/dhcp'],
];

const allowed: [string, string][] = [
  ['packages/dhcp', '@virt-launcher/contracts'],
  ['packages/netsetup', '@virt-launcher/contracts'],
  ['packages/launcher', '@virt-launcher/netsetup'],
  ['packages/launcher', '@virt-launcher/contracts'],
  ['tools/pod', '@virt-launcher/launcher'],
  ['tools/bench', '@virt-launcher/netsetup'],
  // bench loads libvirt lazily in one suite; a tool may still import it statically in another.
  ['tools/bench', '@virt-launcher/libvirt'],
];

describe('the package graph is enforced by lint', () => {
  for (const [dir, target] of forbidden) {
    it(`${dir} may not import ${target}`, async () => {
      // A role importing a role is a tag violation; an edge that closes a cycle is reported as the cycle.
      expect((await boundaryErrors(dir, target)).join('\n')).toMatch(
        /can only depend on libs tagged with|Circular dependency/,
      );
    });
  }
  for (const [dir, target] of allowed) {
    it(`${dir} may import ${target}`, async () => {
      expect(await boundaryErrors(dir, target)).toEqual([]);
    });
  }
});

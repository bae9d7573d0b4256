// Regenerates kubevirt-structs.json from a KubeVirt checkout (facts only: names, Go types, tags).
//   npx tsx src/domain/go-fields/regenerate.ts <kubevirt git dir or work tree> [commit]
// It reads pkg/virt-launcher/virtwrap/api/schema.go and pkg/virt-launcher/virtwrap/stats/types.go at that commit.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { extractGoTypes } from './extract.js';

const SOURCES = {
  api: 'pkg/virt-launcher/virtwrap/api/schema.go',
  stats: 'pkg/virt-launcher/virtwrap/stats/types.go',
} as const;

function main(): void {
  const [repo, commitArg = 'HEAD'] = process.argv.slice(2);
  if (!repo) throw new Error('usage: regenerate.ts <kubevirt git dir> [commit]');
  const git = (...args: string[]): string => execFileSync('git', [`--git-dir=${repo}`, ...args], { encoding: 'utf8' });
  const commit = git('rev-parse', commitArg).trim();
  const table = {
    provenance: {
      repository: 'https://github.com/kubevirt/kubevirt',
      commit,
      files: Object.values(SOURCES),
      extractedBy: 'packages/launcher/src/domain/go-fields/regenerate.ts (extractGoTypes in extract.ts)',
      note: 'Facts only: struct and field names, Go types, json and xml tags. Unexported fields are left out.',
    },
    api: extractGoTypes(git('show', `${commit}:${SOURCES.api}`)),
    stats: extractGoTypes(git('show', `${commit}:${SOURCES.stats}`)),
  };
  const out = new URL('./kubevirt-structs.json', import.meta.url);
  writeFileSync(out, JSON.stringify(table, null, 1) + '\n');
  console.error(
    `wrote ${out.pathname}: ${Object.keys(table.api).length} api types, ${Object.keys(table.stats).length} stats types`,
  );
}

main();

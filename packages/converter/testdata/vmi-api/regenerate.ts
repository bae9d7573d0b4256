// Regenerates fields.json: every JSON field path under a VMI's `spec`, read from KubeVirt's Go API types.
//   npx tsx testdata/vmi-api/regenerate.ts <kubevirt git dir> [commit]
// Facts only (field names and their nesting). Structs declared in the core/v1 API package are followed;
// a type from another package (Kubernetes core, resource.Quantity, …) is a leaf. A slice adds `[]` to the
// path and a map adds `{}`; embedded (inline) structs contribute their fields to the parent.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';

const DIR = 'staging/src/kubevirt.io/api/core/v1';
const FILES = ['types.go', 'schema.go', 'componentconfig.go'].map((f) => `${DIR}/${f}`);

interface Field {
  json: string; // '' for an inline embed
  type: string;
}

/** Struct name → its exported, JSON-visible fields. */
function structs(source: string): Map<string, Field[]> {
  const out = new Map<string, Field[]>();
  const re = /^type (\w+) struct \{\n([\s\S]*?)^\}/gm;
  for (const m of source.matchAll(re)) {
    const fields: Field[] = [];
    for (const raw of (m[2] as string).split('\n')) {
      const line = raw.trim();
      if (line.startsWith('//') || !line.includes('json:"')) continue;
      const tag = /json:"([^"]*)"/.exec(line)?.[1] ?? '';
      const name = tag.split(',')[0] as string;
      if (name === '-') continue;
      const head = line.slice(0, line.indexOf('`')).trim().split(/\s+/);
      // `Name Type` or an embedded `Type`
      const type = (head.length >= 2 ? head.slice(1).join(' ') : head[0]) as string;
      fields.push({ json: tag.includes('inline') || head.length < 2 ? '' : name, type });
    }
    out.set(m[1] as string, fields);
  }
  return out;
}

function walk(types: Map<string, Field[]>, type: string, prefix: string, seen: string[], acc: Set<string>): void {
  let t = type.replace(/^\*/, '');
  let suffix = '';
  for (;;) {
    if (t.startsWith('[]')) {
      suffix += '[]';
      t = t.slice(2).replace(/^\*/, '');
    } else if (t.startsWith('map[')) {
      suffix += '{}';
      t = t.slice(t.indexOf(']') + 1).replace(/^\*/, '');
    } else break;
  }
  const fields = flat(types, t);
  if (prefix) acc.add(prefix + suffix);
  if (!types.has(t) || seen.includes(t)) return; // a leaf, or a recursive type already on the path
  for (const f of fields) walk(types, f.type, `${prefix}${suffix}${prefix ? '.' : ''}${f.json}`, [...seen, t], acc);
}

/** A struct's named fields, with inline embeds flattened in; an embed from another package adds nothing. */
function flat(types: Map<string, Field[]>, type: string): Field[] {
  return (types.get(type) ?? []).flatMap((f) => (f.json ? [f] : flat(types, f.type.replace(/^\*/, ''))));
}

function main(): void {
  const [repo, commitArg = 'HEAD'] = process.argv.slice(2);
  if (!repo) throw new Error('usage: regenerate.ts <kubevirt git dir> [commit]');
  const git = (...args: string[]): string => execFileSync('git', [`--git-dir=${repo}`, ...args], { encoding: 'utf8' });
  const commit = git('rev-parse', commitArg).trim();
  const types = new Map<string, Field[]>();
  for (const f of FILES) for (const [k, v] of structs(git('show', `${commit}:${f}`))) types.set(k, v);
  const acc = new Set<string>();
  walk(types, 'VirtualMachineInstanceSpec', 'spec', [], acc);
  const table = {
    provenance: {
      repository: 'https://github.com/kubevirt/kubevirt',
      commit,
      files: FILES,
      root: 'VirtualMachineInstanceSpec',
      extractedBy: 'packages/converter/testdata/vmi-api/regenerate.ts',
    },
    paths: [...acc].sort(),
  };
  const out = new URL('./fields.json', import.meta.url);
  writeFileSync(out, JSON.stringify(table, null, 1) + '\n');
  console.error(`wrote ${out.pathname}: ${table.paths.length} paths`);
}

main();

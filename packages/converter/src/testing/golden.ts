// Test helper: loads the shared golden vectors (../shared/golden beside the repository) and compares
// XML the way their README asks: parsed, normalised, element by element.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { normalize, parseXml, type Node } from './xml-tree.js';

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(here, '../../../..');

export const GOLDEN_DIR = process.env.VLT_GOLDEN_DIR ?? join(repoRoot, '..', 'shared', 'golden');

export function goldenExists(): boolean {
  return existsSync(join(GOLDEN_DIR, 'README.md'));
}

export function readGolden(vector: string, file: string): string {
  return readFileSync(join(GOLDEN_DIR, vector, file), 'utf8');
}

export function goldenJson(vector: string, file: string): Record<string, unknown> {
  return JSON.parse(readGolden(vector, file)) as Record<string, unknown>;
}

/** Normalised tree of an XML document or fragment (a fragment's siblings are wrapped in <fragment>). */
export function tree(xml: string): Node {
  const doc = parseXml(`<fragment>${xml.replace(/^<\?xml[^>]*>/, '')}</fragment>`);
  return normalize(doc) ?? { name: 'fragment', attrs: {}, children: [], text: '' };
}

/** Readable form for diffs: one line per element path with its attributes and text. */
export function flatten(node: Node, prefix = ''): string[] {
  const path = `${prefix}/${node.name}`;
  const attrs = Object.entries(node.attrs)
    .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
    .join(' ');
  const line = `${path}${attrs ? ` [${attrs}]` : ''}${node.text ? ` = ${JSON.stringify(node.text)}` : ''}`;
  return [line, ...node.children.flatMap((c) => flatten(c, path))];
}

// Test helper: loads the KubeVirt converter test vectors kept in this package (testdata/kubevirt, whose README
// says which KubeVirt test each comes from) and compares XML parsed and normalised, element by element.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { normalize, parseXml, type Node } from './xml-tree.js';

const here = dirname(fileURLToPath(import.meta.url));

export const GOLDEN_DIR = join(resolve(here, '../..'), 'testdata', 'kubevirt');

/** A vector file a test needs is absent: the test fails with this instead of being skipped. */
export class MissingVectorError extends Error {
  constructor(
    readonly vector: string,
    readonly file: string,
    readonly path: string,
  ) {
    super(`golden vector ${vector}/${file} is missing: expected at ${path}`);
    this.name = 'MissingVectorError';
  }
}

export function readGolden(vector: string, file: string): string {
  const path = join(GOLDEN_DIR, vector, file);
  if (!existsSync(path)) throw new MissingVectorError(vector, file, path);
  return readFileSync(path, 'utf8');
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

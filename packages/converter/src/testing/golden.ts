// Test helper: loads the KubeVirt converter test vectors kept in this package (testdata/kubevirt, whose README
// says which KubeVirt test each comes from) and compares XML parsed and normalised, element by element.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Configurator } from '../configurators/configurator.js';
import { memfdRequired } from '../context/plan.js';
import { resolveContext } from '../context/resolve.js';
import { emptyDomain } from '../domain/types.js';
import { ConverterContext } from '../gen/virtlauncher/converter/v1/converter.js';
import type { VirtualMachineInstance } from '../vmi/types.js';
import { toDomainXml } from '../xml/domain-xml.js';
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

/** Attribute order carries no meaning in XML: both trees list attributes by name. */
export function sortedAttrs(node: Node): Node {
  const attrs = Object.fromEntries(Object.entries(node.attrs).sort(([a], [b]) => a.localeCompare(b)));
  return { ...node, attrs, children: node.children.map(sortedAttrs) };
}

/**
 * Runs one configurator alone on a vector's VMI with its context.json, as KubeVirt's configurator tests do;
 * the Go test's configurator options are architecture facts here. Returns the domain XML it wrote.
 */
export function runConfiguratorAlone(vector: string, step: Configurator): string {
  const vmi = goldenJson(vector, 'vmi.json') as unknown as VirtualMachineInstance;
  const json = goldenJson(vector, 'context.json');
  const resolved = resolveContext(ConverterContext.fromJSON(json), vmi);
  if (json.hasVMPort === false) resolved.arch = { ...resolved.arch, hasVmport: false };
  if (json.smbiosNeeded === false) resolved.arch = { ...resolved.arch, smbiosNeeded: false };
  if (json.cpuHotplugSupported === false) resolved.arch = { ...resolved.arch, cpuHotplug: false };
  if (json.mpxCPUValidationRequired === false) resolved.arch = { ...resolved.arch, mpxValidation: false };
  if (json.romTuningSupported === false) resolved.arch = { ...resolved.arch, romTuning: false };
  if (json.memfdSupported === false) {
    resolved.arch = { ...resolved.arch, memfdSupported: false };
    resolved.memfdRequired = memfdRequired(vmi, resolved.arch);
  }
  const domain = emptyDomain();
  step.configure(vmi, domain, resolved);
  return toDomainXml(domain);
}

/** A negative vector's expected-error.txt: the VMI field the refusal names, then text its message holds. */
export function expectedRefusal(vector: string): { field: string; text?: string } | undefined {
  if (!existsSync(join(GOLDEN_DIR, vector, 'expected-error.txt'))) return undefined;
  const [field = '', text] = readGolden(vector, 'expected-error.txt').trim().split('\n');
  return text ? { field, text: text.trim() } : { field };
}

/** What fn threw; undefined when it returned. */
export function thrownBy(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  return undefined;
}

// Proof that no field of the VMI API is dropped silently. testdata/vmi-api/fields.json lists every JSON
// path under a VMI's spec, extracted from KubeVirt's Go types (regenerate.ts); classification.json says
// for each who uses it. This test fails when a path has no decision (a KubeVirt update that adds a field
// fails here until someone classifies it), when a refused path converts without a ConversionError naming
// it, and when a built path set to a non-default value leaves the domain XML as it was (a mutation check).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { convert } from './builder.js';
import { ConversionError } from './errors.js';
import { ConverterContext } from './gen/virtlauncher/converter/v1/converter.js';
import { vmi } from './testing/fixture.js';
import type { VirtualMachineInstance } from './vmi/types.js';
import { toDomainXml } from './xml/domain-xml.js';

interface Rule {
  path: string;
  class: 'built' | 'refused' | 'not-domain' | 'launcher' | 'unused';
  by?: string;
  reason?: string;
  error?: string;
  children?: boolean;
  value?: unknown;
  /** Other paths to set first (whole values), when the field matters only together with them. */
  with?: Record<string, unknown>;
}

const dir = new URL('../testdata/vmi-api/', import.meta.url);
const fields = JSON.parse(readFileSync(new URL('fields.json', dir), 'utf8')) as { paths: string[] };
const rules = (JSON.parse(readFileSync(new URL('classification.json', dir), 'utf8')) as { rules: Rule[] }).rules;

/** The rule deciding a path: its own, else the nearest ancestor rule that covers children. */
function ruleFor(path: string): Rule | undefined {
  const own = rules.find((r) => r.path === path);
  if (own) return own;
  return rules
    .filter((r) => r.children && (path.startsWith(`${r.path}.`) || path.startsWith(`${r.path}[`)))
    .sort((a, b) => b.path.length - a.path.length)[0];
}

/** A VMI with one container disk, so that per-disk and per-volume paths have an element to change. */
function base(): VirtualMachineInstance {
  return vmi(
    { devices: { disks: [{ name: 'root', disk: { bus: 'virtio' } }] } },
    { volumes: [{ name: 'root', containerDisk: { image: 'example/disk' } }] },
  );
}

/** Sets a value at a fields.json path; `[]` means the first element (created when absent). */
/** The base VMI with a rule's `with` paths and then its value set. */
function mutated(path: string, r: Rule): VirtualMachineInstance {
  const v = base();
  for (const [p, val] of Object.entries(r.with ?? {}))
    setPath(v as unknown as Record<string, unknown>, p, structuredClone(val));
  setPath(v as unknown as Record<string, unknown>, path, structuredClone(r.value));
  return v;
}

function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const steps = path.replace(/\[\]/g, '.[]').replace(/\{\}/g, '.{}').split('.');
  let node: Record<string, unknown> | unknown[] = target;
  steps.forEach((step, i) => {
    const last = i === steps.length - 1;
    if (step === '[]' || step === '{}') return; // handled by the step before
    const next = steps[i + 1];
    const rec = node as Record<string, unknown>;
    if (next === '[]') {
      const list = (rec[step] as unknown[] | undefined) ?? (rec[step] = [{}]);
      if (i + 1 === steps.length - 1) list[0] = value;
      else node = (list[0] ??= {}) as Record<string, unknown>;
      return;
    }
    if (last) rec[step] = value;
    else node = (rec[step] ??= {}) as Record<string, unknown>;
  });
}

const CONTEXT = ConverterContext.fromPartial({
  disksInfo: { root: { format: 'qcow2', backingFilename: '', actualSize: 0n, virtualSize: 1n << 30n } },
});
const xmlOf = (v: VirtualMachineInstance): string => toDomainXml(convert(v, CONTEXT));

describe('VMI API coverage (testdata/vmi-api)', () => {
  it('classifies every spec path of KubeVirt API types', () => {
    const unclassified = fields.paths.filter((p) => ruleFor(p) === undefined);
    expect(unclassified).toEqual([]);
  });

  it('has no rule for a path the API does not have', () => {
    const known = new Set(fields.paths);
    expect(rules.map((r) => r.path).filter((p) => !known.has(p))).toEqual([]);
  });

  it('gives every rule its provenance: a file for built/launcher, a reason or error otherwise', () => {
    const bad = rules.filter((r) =>
      r.class === 'built' || r.class === 'launcher' ? !r.by : r.class === 'refused' ? !r.error : !r.reason,
    );
    expect(bad.map((r) => r.path)).toEqual([]);
  });

  it('converts the base VMI', () => {
    expect(xmlOf(base())).toContain('<domain');
  });

  const refused = rules.filter((r) => r.class === 'refused' && r.value !== undefined);
  it.each(refused.map((r) => [r.path, r] as const))('refuses %s with a ConversionError naming it', (path, r) => {
    const v = mutated(path, r);
    let err: unknown;
    try {
      xmlOf(v);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConversionError);
    const field = (err as ConversionError).field.replace(/\[\d+\]/g, '[]');
    // A list path is named by the list itself (`…portRanges` for `…portRanges[]`).
    expect(field.startsWith(path.replace(/\[\]$/, ''))).toBe(true);
  });

  const built = rules.filter((r) => r.class === 'built' && r.value !== undefined);
  it.each(built.map((r) => [r.path, r] as const))('builds %s: setting it changes the domain XML', (path, r) => {
    const before = xmlOf(base());
    const v = mutated(path, r);
    expect(xmlOf(v)).not.toEqual(before);
  });
});

// A small parser with the rules of the Go flag library KubeVirt's programs use (spf13/pflag): `--name value`
// and `--name=value`, booleans without a value (or `--name=true|false`), positional arguments anywhere,
// everything after `--` positional. An unknown flag or a bad value is a FlagError naming the flag; the
// programs map it to pflag's exit code 2 (virt-tail ignores unknown flags, as KubeVirt's does).
export type FlagKind = 'string' | 'bool' | 'int32';

export interface FlagSpec {
  kind: FlagKind;
  default: string | boolean | number;
  help: string;
}

export type FlagSpecs = Record<string, FlagSpec>;
export type FlagValues<S extends FlagSpecs> = {
  [K in keyof S]: S[K]['kind'] extends 'bool' ? boolean : S[K]['kind'] extends 'int32' ? number : string;
};

export interface ParsedFlags<S extends FlagSpecs> {
  values: FlagValues<S>;
  args: string[];
  help: boolean;
}

export class FlagError extends Error {
  constructor(
    readonly flag: string,
    readonly value: string | undefined,
    reason: string,
  ) {
    super(value === undefined ? `flag --${flag}: ${reason}` : `flag --${flag}: invalid value "${value}": ${reason}`);
    this.name = 'FlagError';
  }
}

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

function convert(name: string, spec: FlagSpec, raw: string): string | boolean | number {
  if (spec.kind === 'string') return raw;
  if (spec.kind === 'bool') {
    if (['true', '1', 't', 'TRUE', 'True', 'T'].includes(raw)) return true;
    if (['false', '0', 'f', 'FALSE', 'False', 'F'].includes(raw)) return false;
    throw new FlagError(name, raw, 'not a boolean');
  }
  if (!/^[+-]?\d+$/.test(raw)) throw new FlagError(name, raw, 'not an integer');
  const n = Number(raw);
  if (n < INT32_MIN || n > INT32_MAX) throw new FlagError(name, raw, 'out of the int32 range');
  return n;
}

export interface ParseOptions {
  /** Skip unknown flags instead of failing (virt-tail's behaviour). */
  ignoreUnknown?: boolean;
}

export function parseFlags<S extends FlagSpecs>(specs: S, argv: string[], opts: ParseOptions = {}): ParsedFlags<S> {
  const values: Record<string, string | boolean | number> = {};
  for (const [name, spec] of Object.entries(specs)) values[name] = spec.default;
  const args: string[] = [];
  let help = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      args.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith('-') || arg === '-') {
      args.push(arg);
      continue;
    }
    const body = arg.replace(/^--?/, '');
    const eq = body.indexOf('=');
    const name = eq === -1 ? body : body.slice(0, eq);
    const inline = eq === -1 ? undefined : body.slice(eq + 1);
    if (name === 'h' || name === 'help') {
      help = true;
      continue;
    }
    const spec = specs[name];
    if (!spec) {
      if (opts.ignoreUnknown) continue;
      throw new FlagError(name, undefined, 'unknown flag');
    }
    if (spec.kind === 'bool') {
      values[name] = inline === undefined ? true : convert(name, spec, inline);
      continue;
    }
    const raw = inline ?? argv[++i];
    if (raw === undefined) throw new FlagError(name, undefined, 'needs an argument');
    values[name] = convert(name, spec, raw);
  }
  return { values: values as FlagValues<S>, args, help };
}

export function usage(program: string, synopsis: string, specs: FlagSpecs): string {
  const lines = [`Usage of ${program}: ${synopsis}`];
  for (const [name, spec] of Object.entries(specs)) {
    const arg = spec.kind === 'bool' ? '' : ` ${spec.kind === 'int32' ? 'int32' : 'string'}`;
    const def = spec.default === '' || spec.default === false ? '' : ` (default ${JSON.stringify(spec.default)})`;
    lines.push(`      --${name}${arg}`.padEnd(36) + spec.help + def);
  }
  return lines.join('\n') + '\n';
}

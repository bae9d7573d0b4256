#!/usr/bin/env node
// vmi-to-domain [FILE|-] [--context FILE] [--format xml|json]
// Reads a VMI (JSON or YAML), converts it with the context file's facts (left-out fields: this
// machine's), prints the domain XML (or the Domain as JSON). Bad input: exit 2, one line on stderr.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { convert } from './builder.js';
import { hostContextDefaults, withDefaults } from './context/host.js';
import { ConversionError } from './errors.js';
import { ConverterContext } from './gen/virtlauncher/converter/v1/converter.js';
import { parseVmi } from './vmi/parse.js';
import { toDomainXml } from './xml/domain-xml.js';

const USAGE = 'usage: vmi-to-domain [FILE|-] [--context FILE] [--format xml|json]';

class UsageError extends Error {}

function readInput(path: string): string {
  try {
    return readFileSync(path === '-' ? 0 : path, 'utf8');
  } catch (error) {
    throw new UsageError(
      `cannot read ${path === '-' ? 'stdin' : path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
}

function readContext(path: string | undefined): ConverterContext {
  if (!path) return ConverterContext.fromPartial({});
  const text = readInput(path);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`context ${path} is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    throw new UsageError(`context ${path} is not a JSON object`);
  return ConverterContext.fromJSON(json);
}

function main(argv: string[]): string {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      context: { type: 'string' },
      format: { type: 'string', default: 'xml' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return `${USAGE}\n`;
  if (positionals.length > 1) throw new UsageError(`expected at most one input file, got ${positionals.length}`);
  if (values.format !== 'xml' && values.format !== 'json')
    throw new UsageError(`--format must be xml or json, not ${values.format}`);
  const vmiText = readInput(positionals[0] ?? '-');
  const fileContext = readContext(values.context);
  const vmi = parseVmi(vmiText, { architecture: fileContext.architecture });
  const context = withDefaults(fileContext, hostContextDefaults(vmi));
  const domain = convert(vmi, context);
  if (values.format === 'json')
    return `${JSON.stringify(domain, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v), 2)}\n`;
  return toDomainXml(domain);
}

try {
  process.stdout.write(main(process.argv.slice(2)));
} catch (error) {
  const known =
    error instanceof ConversionError ||
    error instanceof UsageError ||
    (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
  const message = known ? (error as Error).message : `internal error: ${(error as Error).message}`;
  process.stderr.write(`vmi-to-domain: ${message.split('\n')[0]}\n`);
  process.exitCode = known ? 2 : 1;
}

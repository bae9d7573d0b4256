#!/usr/bin/env node
// vmi-to-domain [FILE|-] [--context FILE] [--format xml|json]
// Reads a VMI (JSON or YAML), converts it with the context file's facts (left-out fields: this
// machine's), prints the domain XML (or the Domain as JSON). Bad input: exit 2, one line on stderr,
// nothing on stdout; the line never carries raw control characters from the input.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { convert } from './builder.js';
import { hostContextDefaults, withDefaults } from './context/host.js';
import { ConversionError, escapeControls } from './errors.js';
import { ConverterContext, DiskInfo } from './gen/virtlauncher/converter/v1/converter.js';
import type { VirtualMachineInstance } from './vmi/types.js';
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

/**
 * virt-handler tells the launcher each container disk's image format; on its own the CLI reads it from the
 * image where the launcher would find it (`<containerDiskDir>/disk_<index>.img`) and otherwise assumes raw,
 * the format of the demo's images. A format the context gives always wins.
 */
function containerDiskFormats(vmi: VirtualMachineInstance, context: ConverterContext): ConverterContext {
  const dir = context.paths?.containerDiskDir || '/var/run/kubevirt/container-disks';
  const disksInfo = { ...context.disksInfo };
  (vmi.spec.volumes ?? []).forEach((volume, index) => {
    if (!volume.containerDisk || disksInfo[volume.name]?.format) return;
    const known = disksInfo[volume.name] ?? DiskInfo.fromPartial({});
    disksInfo[volume.name] = { ...known, format: imageFormat(`${dir}/disk_${index}.img`) };
  });
  return { ...context, disksInfo };
}

function imageFormat(path: string): string {
  if (!existsSync(path)) return 'raw';
  try {
    const out = execFileSync('qemu-img', ['info', '-U', '--output=json', path], { encoding: 'utf8', timeout: 10_000 });
    return (JSON.parse(out) as { format?: string }).format ?? 'raw';
  } catch {
    return 'raw';
  }
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
  const context = containerDiskFormats(vmi, withDefaults(fileContext, hostContextDefaults(vmi)));
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
  // Known errors are one line already (escaped); anything else: its first line, escaped too.
  const line = escapeControls(known ? message : (message.split('\n')[0] ?? ''));
  process.stderr.write(`vmi-to-domain: ${line}\n`);
  process.exitCode = known ? 2 : 1;
}

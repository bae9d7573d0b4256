#!/usr/bin/env node
// virt-ephemeral-disk: the package's operations from a shell. Prints the resulting path on stdout, progress
// as JSON log lines on stderr (unless --quiet). Bad input exits 2 with one line naming the problem.
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { DiskError, InvalidRequestError } from './errors.js';
import { CloudInitType } from './gen/virtlauncher/disk/v1/disk.js';
import { createCloudInitIso } from './cloud-init.js';
import { createConfigIso } from './config-iso.js';
import { createEmptyDisk } from './empty-disk.js';
import { createHostDisk } from './host-disk.js';
import { inspectImage } from './image.js';
import { formatLogLine, type CallOptions } from './progress.js';
import { createWriteLayer } from './write-layer.js';

const USAGE = `usage: virt-ephemeral-disk <command> [options]
  write-layer --dir EPHEMERAL_DIR --volume NAME --backing FILE [--backing-format raw|qcow2]
  empty       --dir EMPTY_DISK_DIR --volume NAME --capacity QUANTITY
  host-disk   --path FILE --capacity QUANTITY [--toleration PERCENT]
  cloud-init  --dir EPHEMERAL_DIR --namespace NS --name NAME --user-data FILE [--network-data FILE]
              [--type nocloud|configdrive]
  config-iso  --source DIR --target FILE [--label LABEL]
  inspect     --image FILE
common: --quiet (no progress lines on stderr)`;

class UsageError extends Error {}

type Values = Record<string, string | boolean | undefined>;

function required(values: Values, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value === '') throw new UsageError(`missing --${name}`);
  return value;
}

function optional(values: Values, name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
}

async function readInput(path: string, what: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw new InvalidRequestError(what, `cannot read ${path} (${(error as NodeJS.ErrnoException).code})`);
  }
}

function cloudInitType(text: string | undefined): CloudInitType {
  if (text === undefined || text === 'nocloud') return CloudInitType.CLOUD_INIT_TYPE_NOCLOUD;
  if (text === 'configdrive') return CloudInitType.CLOUD_INIT_TYPE_CONFIGDRIVE;
  throw new UsageError(`--type must be nocloud or configdrive, not ${JSON.stringify(text)}`);
}

const json = (value: unknown) => JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? Number(v) : v));

async function execute(command: string, values: Values, options: CallOptions): Promise<string> {
  switch (command) {
    case 'write-layer': {
      const result = await createWriteLayer(
        {
          ephemeralDir: required(values, 'dir'),
          volume: required(values, 'volume'),
          backingFile: required(values, 'backing'),
          backingFormat: optional(values, 'backing-format'),
        },
        options,
      );
      return result.path;
    }
    case 'empty': {
      const request = {
        emptyDiskDir: required(values, 'dir'),
        volume: required(values, 'volume'),
        capacity: required(values, 'capacity'),
      };
      return (await createEmptyDisk(request, options)).path;
    }
    case 'host-disk': {
      const toleration = optional(values, 'toleration');
      const request = {
        path: required(values, 'path'),
        capacity: required(values, 'capacity'),
        tolerationPercent: toleration === undefined ? undefined : Number(toleration),
      };
      return (await createHostDisk(request, options)).path;
    }
    case 'cloud-init': {
      const networkFile = optional(values, 'network-data');
      const result = await createCloudInitIso(
        {
          ephemeralDir: required(values, 'dir'),
          namespace: required(values, 'namespace'),
          name: required(values, 'name'),
          type: cloudInitType(optional(values, 'type')),
          userData: await readInput(required(values, 'user-data'), 'user data'),
          userDataBase64: '',
          userDataSecretDir: '',
          networkData: networkFile === undefined ? '' : await readInput(networkFile, 'network data'),
          networkDataBase64: '',
          networkDataSecretDir: '',
          metaData: undefined,
        },
        options,
      );
      return result.path;
    }
    case 'config-iso': {
      const request = {
        sourceDir: required(values, 'source'),
        targetPath: required(values, 'target'),
        label: optional(values, 'label') ?? '',
      };
      return (await createConfigIso(request, options)).path;
    }
    case 'inspect':
      return json(await inspectImage(required(values, 'image')));
    default:
      throw new UsageError(`unknown command ${JSON.stringify(command)}`);
  }
}

const OPTIONS = {
  dir: { type: 'string' },
  volume: { type: 'string' },
  backing: { type: 'string' },
  'backing-format': { type: 'string' },
  capacity: { type: 'string' },
  path: { type: 'string' },
  toleration: { type: 'string' },
  namespace: { type: 'string' },
  name: { type: 'string' },
  'user-data': { type: 'string' },
  'network-data': { type: 'string' },
  type: { type: 'string' },
  source: { type: 'string' },
  target: { type: 'string' },
  label: { type: 'string' },
  image: { type: 'string' },
  quiet: { type: 'boolean', short: 'q' },
  help: { type: 'boolean', short: 'h' },
} as const;

export async function main(argv: string[]): Promise<number> {
  try {
    const { values, positionals } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
    if (values.help) {
      process.stdout.write(`${USAGE}\n`);
      return 0;
    }
    const [command, ...extra] = positionals;
    if (command === undefined) throw new UsageError('missing command');
    if (extra.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(extra[0])}`);
    const options: CallOptions = values.quiet
      ? {}
      : { onProgress: (e) => process.stderr.write(`${formatLogLine(e)}\n`) };
    process.stdout.write(`${await execute(command, values, options)}\n`);
    return 0;
  } catch (error) {
    const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
    process.stderr.write(`virt-ephemeral-disk: ${message}\n`);
    const parseError = (error as { code?: unknown }).code?.toString().startsWith('ERR_PARSE_ARGS') ?? false;
    const badInput = error instanceof UsageError || parseError || (error instanceof DiskError && error.badInput);
    return badInput ? 2 : 1;
  }
}

process.exitCode = await main(process.argv.slice(2));

#!/usr/bin/env node
// virt-dhcp: runs startDhcpServer in the foreground until SIGTERM/SIGINT, logging JSON lines on stderr.
// Exit codes: 0 after a signal, 2 for bad flags or config, 1 when the socket cannot be opened.
import '@virt-launcher/shared/no-inspector';
import { readFile } from 'node:fs/promises';
import { DhcpServerConfig } from '@virt-launcher/contracts';
import { DhcpConfigError } from './errors.js';
import { createLogger } from '@virt-launcher/shared';
import { startDhcpServer } from './server.js';
import { USAGE, UsageError, parseServeArgs } from './cli-args.js';

/** A DhcpServerConfig file: JSON when it ends in .json, else the binary form netsetup's callers cache. */
async function readConfigFile(path: string): Promise<DhcpServerConfig> {
  const data = await readFile(path);
  return path.endsWith('.json')
    ? DhcpServerConfig.fromJSON(JSON.parse(data.toString('utf8')))
    : DhcpServerConfig.decode(data);
}

async function main(): Promise<number> {
  let command;
  try {
    command = parseServeArgs(process.argv.slice(2));
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`virt-dhcp: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
  if (command.configPath) {
    try {
      command.config = await readConfigFile(command.configPath);
    } catch (e) {
      process.stderr.write(`virt-dhcp: --config ${command.configPath}: ${(e as Error).message.split('\n')[0]}\n`);
      return 2;
    }
  }
  const logger = createLogger({ component: 'virt-dhcp', level: command.logLevel });
  // The handlers go in before the start: a SIGTERM that arrives while the sockets are being opened must still
  // close them and exit 0, not end the process by the signal's default action.
  let stopRequested: string | undefined;
  let onStop: ((signal: string) => void) | undefined;
  const requestStop = (signal: string): void => (onStop ? onStop(signal) : void (stopRequested = signal));
  process.once('SIGTERM', () => requestStop('SIGTERM'));
  process.once('SIGINT', () => requestStop('SIGINT'));
  let server;
  try {
    server = await startDhcpServer(command.config, { logger });
  } catch (e) {
    if (e instanceof DhcpConfigError) {
      process.stderr.write(`virt-dhcp: ${e.field}: ${e.message}\n`);
      return 2;
    }
    logger.error('cannot start', { reason: (e as Error).message });
    return 1;
  }
  const running = server;
  await new Promise<void>((resolve) => {
    onStop = (signal: string): void => {
      logger.info('stopping', { signal });
      void running.close().then(resolve);
    };
    if (stopRequested) onStop(stopRequested);
  });
  return 0;
}

if (process.argv[2] === '--help' || process.argv[2] === '-h') {
  process.stdout.write(USAGE + '\n');
} else {
  main().then(
    (code) => process.exit(code),
    (e: unknown) => {
      process.stderr.write(`virt-dhcp: ${(e as Error).message}\n`);
      process.exit(1);
    },
  );
}

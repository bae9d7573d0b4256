#!/usr/bin/env node
// virt-pod: run a VMI on this machine through the real launcher, as kubelet + virt-handler would.
// Exit codes: 0 done (with --until-lease: the guest got its lease; with --until-migrated: it migrated), 1 failure, 2 bad usage, 130 interrupted (Ctrl-C)
// before the guest ran.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseRunArgs, UsageError, USAGE } from './args.js';
import { InterruptedError, runPod, StartFailedError } from './run.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const print = (line: string) => process.stdout.write(`${line}\n`);

async function main(): Promise<number> {
  let args;
  try {
    args = parseRunArgs(process.argv.slice(2));
  } catch (e) {
    if (e instanceof UsageError) {
      if (e.message) process.stderr.write(`virt-pod: ${e.message}\n`);
      process.stderr.write(`${USAGE}\n`);
      return e.message ? 2 : 0;
    }
    throw e;
  }
  if (process.getuid?.() !== 0) {
    process.stderr.write('virt-pod: must run as root (it creates network and mount namespaces)\n');
    return 2;
  }
  try {
    const outcome = await runPod(args, repo, print);
    if (args.untilLease) return outcome.leased ? 0 : 1;
    if (args.migration?.untilMigrated) return outcome.migrated ? 0 : 1;
    return 0;
  } catch (e) {
    if (e instanceof InterruptedError) {
      process.stderr.write(`virt-pod: ${e.message}; the pod was removed\n`);
      return 130;
    }
    if (e instanceof StartFailedError) {
      process.stderr.write(`virt-pod: the VMI did not start: ${e.message}\n`);
      return 1;
    }
    process.stderr.write(`virt-pod: ${(e as Error).message}\n`);
    return 1;
  }
}

// Exit explicitly: a pending timer of the lease wait must not hold the process open once the pod is gone.
process.exit(await main());

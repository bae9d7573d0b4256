// Test support: a private libvirtd started with tools/sandbox/private-root.sh (its files all under one
// temporary directory) and stopped again, even when a test fails.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { execa } from 'execa';

const script = resolve(dirname(fileURLToPath(import.meta.url)), '../../../tools/sandbox/private-root.sh');

export interface PrivateDaemon {
  root: string;
  uri: string;
  /** The daemon's pid, read from the pid file it wrote. */
  pid(): Promise<number>;
  stop(): Promise<void>;
}

export async function startPrivateDaemon(prefix: string): Promise<PrivateDaemon> {
  const root = await mkdtemp(join(tmpdir(), `${prefix}-`));
  const { stdout } = await execa(script, ['libvirtd', root]);
  const uri = stdout.trim().split('\n').pop() ?? '';
  return {
    root,
    uri,
    pid: async () => Number((await readFile(join(root, 'run/libvirtd.pid'), 'utf8')).trim()),
    stop: async () => {
      await execa(script, ['stop', root], { reject: false });
      await rm(root, { recursive: true, force: true });
    },
  };
}

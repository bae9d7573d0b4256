// Where the built guest lives and what build.sh recorded about it (guest.env), for tests in this project.
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const projectDir = join(dirname(fileURLToPath(import.meta.url)), '..');

export const buildScript = join(projectDir, 'build.sh');
export const defaultOutDir = join(projectDir, '..', '..', '.cache', 'demo-guest');

export interface DemoGuest {
  outDir: string;
  kernel: string;
  initrd: string;
  containerDisk: string;
  kernelVersion: string;
  containerDiskMarker: string;
  cmdline: string;
}

export class GuestBuildError extends Error {
  constructor(
    readonly outDir: string,
    readonly stderr: string,
  ) {
    super(`build.sh ${outDir} failed: ${stderr.trim().split('\n').slice(-5).join(' | ')}`);
    this.name = 'GuestBuildError';
  }
}

/** Runs build.sh (a no-op when the outputs are fresh) and returns the artefacts and facts. */
export async function ensureGuest(outDir = defaultOutDir): Promise<DemoGuest & { buildLog: string }> {
  let buildLog: string;
  try {
    const { stderr } = await run('bash', [buildScript, outDir], { maxBuffer: 16 << 20 });
    buildLog = stderr;
  } catch (err) {
    throw new GuestBuildError(outDir, (err as { stderr?: string }).stderr ?? String(err));
  }
  const env = parseEnv(await readFile(join(outDir, 'guest.env'), 'utf8'));
  return {
    outDir,
    kernel: join(outDir, 'vmlinuz'),
    initrd: join(outDir, 'initramfs.gz'),
    containerDisk: join(outDir, 'containerdisk.img'),
    kernelVersion: env.KERNEL_VERSION ?? '',
    containerDiskMarker: env.CONTAINERDISK_MARKER ?? '',
    cmdline: env.CMDLINE ?? '',
    buildLog,
  };
}

/** KEY=value lines, values optionally in single quotes (the shell wrote them). */
export function parseEnv(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const m = /^([A-Z_]+)=(.*)$/.exec(line.trim());
    if (!m?.[1]) continue;
    out[m[1]] = (m[2] ?? '').replace(/^'(.*)'$/, '$1');
  }
  return out;
}

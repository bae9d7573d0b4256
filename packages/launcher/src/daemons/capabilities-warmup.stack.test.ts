// The warm-up against a real libvirtd in a private root (tools/sandbox/private-root.sh, no /dev/kvm): it has the
// daemon probe its default emulator, and only that one, into the cache that a later define of a domain without an
// <emulator> reads.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { warmQemuCapabilities } from './capabilities-warmup.js';

const privateRoot = resolve(import.meta.dirname, '../../../../tools/sandbox/private-root.sh');

/** This test process's virsh children that are still alive (a zombie has no cmdline). */
async function virshChildren(): Promise<number[]> {
  const out: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    const argv0 = (await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '')).split('\0')[0] ?? '';
    if (ppid === process.pid && argv0.endsWith('virsh')) out.push(Number(entry));
  }
  return out;
}

async function cachedEmulators(root: string): Promise<string[]> {
  const dir = join(root, 'var/cache/libvirt/qemu/capabilities');
  const files = await readdir(dir).catch(() => []);
  const texts = await Promise.all(files.map((f) => readFile(join(dir, f), 'utf8')));
  return texts.map((t) => /<emulator>([^<]+)<\/emulator>/.exec(t)?.[1] ?? '?').sort();
}

describe('warmQemuCapabilities', () => {
  let root = '';
  let uri = '';

  beforeAll(async () => {
    root = await mkdtemp('/tmp/vlt-caps-warmup-');
    uri = execFileSync(privateRoot, ['libvirtd', root, '--kvm', 'none'], { encoding: 'utf8' }).trim();
  }, 60_000);

  afterAll(async () => {
    if (root) execFileSync(privateRoot, ['stop', root]);
    if (root) await rm(root, { recursive: true, force: true });
  }, 30_000);

  it('leaves the daemon with the default emulator probed and cached, no other emulator', async () => {
    expect(await cachedEmulators(root)).toEqual([]);
    const outcome = await warmQemuCapabilities(uri, join(root, 'run/libvirt/libvirt-sock'));
    expect(outcome).toMatchObject({ probed: true, reason: undefined });
    expect(await cachedEmulators(root)).toEqual(['/usr/bin/qemu-system-x86_64']);
  }, 120_000);

  it('a define without <emulator> then uses that cache: no further probe', async () => {
    const before = await cachedEmulators(root);
    const xml = join(root, 'domain.xml');
    execFileSync('sh', [
      '-c',
      `printf '%s' "<domain type='qemu'><name>warm</name><memory unit='MiB'>64</memory><os><type arch='x86_64' machine='q35'>hvm</type></os></domain>" > ${xml}`,
    ]);
    const defined = execFileSync('virsh', ['-c', uri, 'define', xml], { encoding: 'utf8' });
    expect(defined).toMatch(/Domain 'warm' defined/);
    const emulator = execFileSync('virsh', ['-c', uri, 'dumpxml', 'warm'], { encoding: 'utf8' });
    expect(emulator).toMatch(/<emulator>\/usr\/bin\/qemu-system-x86_64<\/emulator>/);
    expect(await cachedEmulators(root)).toEqual(before);
    execFileSync('virsh', ['-c', uri, 'undefine', 'warm']);
  }, 60_000);

  it('says why when it cannot run, and does not throw', async () => {
    const noVirsh = await warmQemuCapabilities(uri, join(root, 'run/libvirt/libvirt-sock'), {
      virsh: join(root, 'no-virsh'),
    });
    expect(noVirsh).toMatchObject({ probed: false, reason: `${join(root, 'no-virsh')} is not installed` });
    const badUri = await warmQemuCapabilities(
      'qemu+unix:///system?socket=/dev/null',
      join(root, 'run/libvirt/libvirt-sock'),
    );
    expect(badUri.probed).toBe(false);
    expect(badUri.reason).toMatch(/socket|connect/i);
  }, 60_000);

  it('stops when aborted: while it waits for the socket, and while virsh waits on a frozen daemon', async () => {
    const waiting = new AbortController();
    const noSocket = warmQemuCapabilities(uri, join(root, 'no-socket'), { signal: waiting.signal });
    waiting.abort();
    expect(await noSocket).toMatchObject({ probed: false, reason: 'the launcher is stopping' });

    // A daemon that cannot answer (SIGSTOP) holds virsh in its connect: the abort must end virsh, not wait for it.
    const daemon = Number(readFileSync(join(root, 'run/libvirtd.pid'), 'utf8').trim());
    process.kill(daemon, 'SIGSTOP');
    try {
      const frozen = new AbortController();
      const stuck = warmQemuCapabilities(uri, join(root, 'run/libvirt/libvirt-sock'), { signal: frozen.signal });
      await expect.poll(() => virshChildren(), { timeout: 10_000 }).toHaveLength(1);
      frozen.abort();
      expect(await stuck).toMatchObject({ probed: false, reason: 'the launcher is stopping' });
      await expect.poll(() => virshChildren(), { timeout: 10_000 }).toEqual([]);
    } finally {
      process.kill(daemon, 'SIGCONT');
    }
  }, 60_000);
});

// killTree against the real thing: a launcher in a private root (no /dev/kvm) whose libvirtd is probing QEMU when the
// test SIGKILLs it. libvirt daemonizes the probe, so it is nobody's descendant; killTree must still end it (a pod's
// PID namespace would), else every killed test launcher leaves a QEMU waiting on its QMP socket for ever.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, readlink, rm } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { findProbesIn } from '../daemons/probe-orphans.js';
import { cliPath, descendants, killTree, startLauncherInPrivateRoot } from './launcher-process.js';
import type { LauncherProcess } from './launcher-process.js';

/** The mount namespace of the launcher's node process (the private root's), once it runs. */
async function launcherMountNamespace(l: LauncherProcess): Promise<string> {
  for (const deadline = Date.now() + 30_000; Date.now() < deadline;) {
    const top = l.child.pid ?? 0;
    for (const p of [top, ...(await descendants(top))]) {
      const argv = (await readFile(`/proc/${p}/cmdline`, 'utf8').catch(() => '')).split('\0');
      if (argv[0] === process.execPath && argv[1] === cliPath) return readlink(`/proc/${p}/ns/mnt`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`no virt-launcher process under ${l.child.pid}`);
}

describe('killTree', () => {
  let root = '';
  let launcher: LauncherProcess | undefined;

  afterEach(async () => {
    if (launcher) await killTree(launcher);
    if (root) await rm(root, { recursive: true, force: true });
  }, 30_000);

  it("ends the daemon's QEMU capability probe with the launcher's tree", async () => {
    root = await mkdtemp('/tmp/vlt-killtree-');
    launcher = startLauncherInPrivateRoot(root, 'none', [
      '--name',
      'guest',
      '--namespace',
      'default',
      '--uid',
      'u-killtree',
      '--allow-emulation',
    ]);
    const ns = await launcherMountNamespace(launcher);
    // A fresh root has no capability cache: the daemon probes its default emulator right after its start. Once
    // QEMU has daemonized (-daemonize), the probe is no longer in the launcher's tree.
    // Each probe is held (SIGSTOP) so that it is still there when the tree dies (else the daemon may finish it
    // first). A probe can end between being seen and being held: the daemon probes each installed emulator in
    // turn, so the search goes on until one is held.
    const probes: number[] = [];
    for (const deadline = Date.now() + 60_000; probes.length === 0 && Date.now() < deadline;) {
      // The tree is read after the probes: a probe outside it then has left it for good (reparented to init).
      const found = await findProbesIn(new Set([ns]));
      const tree = await descendants(launcher.child.pid ?? 0);
      for (const pid of found.filter((p) => !tree.includes(p))) {
        try {
          process.kill(pid, 'SIGSTOP');
          probes.push(pid);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
        }
      }
    }
    expect(probes.length).toBeGreaterThan(0);

    await killTree(launcher);
    expect(await findProbesIn(new Set([ns]))).toEqual([]);
    for (const pid of probes) {
      // Gone, or a zombie waiting for init (no command line).
      expect(await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).toBe('');
    }
  }, 120_000);

  it("ends any other process left in the private root's mount namespace (virtlogd spawned as the tree dies)", async () => {
    root = await mkdtemp('/tmp/vlt-killtree-');
    launcher = startLauncherInPrivateRoot(root, 'none', ['--name', 'guest', '--namespace', 'default']);
    const ns = await launcherMountNamespace(launcher);
    const top = launcher.child.pid ?? 0;
    // A process in the launcher's namespace that is nobody in its tree: the case of a daemon spawned between the
    // harness's listing of the tree and its kill.
    const stray = spawn('nsenter', ['-m', '-t', String(top), '--', 'sleep', '600'], { stdio: 'ignore' });
    for (const deadline = Date.now() + 10_000; Date.now() < deadline;) {
      if ((await readlink(`/proc/${stray.pid}/ns/mnt`).catch(() => '')) === ns) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(await readlink(`/proc/${stray.pid}/ns/mnt`)).toBe(ns);
    expect(await descendants(top)).not.toContain(stray.pid);

    const exited = new Promise((r) => stray.once('exit', (_code, signal) => r(signal)));
    await killTree(launcher);
    expect(await exited).toBe('SIGKILL');
  }, 60_000);
});

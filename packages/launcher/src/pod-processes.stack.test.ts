// The pod's processes as KubeVirt's e2e test sees them (tests/vmi_configuration_test.go, "virt-launcher processes
// memory usage", v1.9.0): it runs `ps --no-header axo rss,command` in the compute container, takes the basename of
// each command's first word (any qemu-kvm or qemu-system-* counts as qemu) and requires exactly one of
// virt-launcher-monitor, virt-launcher, virtlogd, virtqemud and qemu. The pod here is made as kubelet would make
// it: its own PID namespace (the monitor is PID 1) and a private root, the monitor running the launcher through the
// package's bin/virt-launcher as the image's /usr/bin/virt-launcher does; `ps` runs inside that namespace, so only
// this pod's processes count. Memory budgets are measured by the benches, not here.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectLauncher } from './cmd-client.js';
import { NotifyStandIn, request } from './testing/handler-standin.js';
import { LauncherProcess, descendants, killGuests, killTree, privateRootScript } from './testing/launcher-process.js';
import { demoGuestVmi, haveDemoGuest, stageDemoGuest } from './testing/demo-guest.js';

const packageDir = resolve(fileURLToPath(import.meta.url), '../..');
const launcherBin = join(packageDir, 'bin/virt-launcher');
const monitorBin = resolve(packageDir, '../monitor/build/virt-launcher-monitor');
const KUBEVIRT_NAMES = ['virt-launcher-monitor', 'virt-launcher', 'virtlogd', 'virtqemud', 'qemu'];

/** The e2e test's parsing of `ps --no-header axo rss,command`: each process's name, the basename of its first word. */
function processNames(psOutput: string): string[] {
  return psOutput
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter((fields) => fields.length >= 2)
    .map((fields) => {
      const command = fields[1]!.split('/').pop() ?? '';
      return command === 'qemu-kvm' || command.startsWith('qemu-system-') ? 'qemu' : command;
    });
}

/** How many processes carry each of the names the e2e test checks (names it does not check are left out). */
function kubevirtCounts(psOutput: string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const name of processNames(psOutput)) if (KUBEVIRT_NAMES.includes(name)) counts[name] = (counts[name] ?? 0) + 1;
  return counts;
}

describe.skipIf(!haveDemoGuest || process.arch !== 'x64')('the pod as KubeVirt ps sees it (root pod, TCG)', () => {
  let root = '';
  let pod: LauncherProcess;
  const notify = new NotifyStandIn();

  beforeAll(async () => {
    root = await mkdtemp('/tmp/vlt-launcher-ps-');
    await stageDemoGuest(root, { containerDisk: false });
    await notify.listen(join(root, 'run/kubevirt/domain-notify-pipe.sock'));
    const argv = [
      ...['--pid', '--fork', '--mount-proc', '--kill-child', '--'],
      ...[privateRootScript, 'exec', root, '--kvm', 'none', '--'],
      ...[monitorBin, '--', launcherBin, '--run-root', '/'],
      ...['--name', 'guest', '--namespace', 'default', '--uid', 'u-ps', '--allow-emulation'],
    ];
    const child = spawn('unshare', argv, { stdio: ['ignore', 'ignore', 'pipe'] });
    pod = new LauncherProcess(child, (p) => join(root, p.replace(/^\/(var\/)?run\//, 'run/')));
    await pod.waitForLog('Marked as ready', 90_000);
  }, 120_000);

  afterAll(async () => {
    if (pod) await killTree(pod);
    if (root) await killGuests(root);
    notify.close();
    if (root) await rm(root, { recursive: true, force: true });
  }, 30_000);

  /** `ps` as the e2e test runs it, inside the pod's PID and mount namespaces (those of its launcher). */
  async function psInPod(): Promise<string> {
    const inPod = await descendants(pod.child.pid!);
    const argv0s = await Promise.all(
      inPod.map((pid) =>
        readFile(`/proc/${pid}/cmdline`, 'utf8').then(
          (c) => c.split('\0')[0],
          () => '',
        ),
      ),
    );
    const launcher = inPod[argv0s.indexOf(launcherBin)];
    expect(launcher, 'no process of the pod runs bin/virt-launcher').toBeDefined();
    const ps = spawnSync(
      'nsenter',
      ['--target', String(launcher), '--pid', '--mount', '--', 'ps', '--no-header', 'axo', 'rss,command'],
      { encoding: 'utf8' },
    );
    expect(ps.status, ps.stderr).toBe(0);
    return ps.stdout;
  }

  it('a ready pod runs one virt-launcher-monitor, virt-launcher and virtqemud (libvirtd under that name)', async () => {
    const ps = await psInPod();
    expect(kubevirtCounts(ps), ps).toMatchObject({ 'virt-launcher-monitor': 1, 'virt-launcher': 1, virtqemud: 1 });
    // Nothing in the pod shows the runtime's or the monolithic daemon's name as its command.
    expect(processNames(ps), ps).not.toContain('node');
    expect(processNames(ps), ps).not.toContain('libvirtd');
  });

  it('once the guest runs: exactly one of each process KubeVirt checks, QEMU and virtlogd included', async () => {
    const client = await connectLauncher(pod.readySocket);
    const res = await client.call(
      'syncVirtualMachine',
      request(demoGuestVmi('u-ps', { containerDisk: false })),
      90_000,
    );
    client.close();
    expect(res.success, res.message).toBe(true);
    await notify.waitFor((e) => e.domain.Status.Status === 'Running', 60_000);
    const ps = await psInPod();
    expect(kubevirtCounts(ps), ps).toEqual(Object.fromEntries(KUBEVIRT_NAMES.map((n) => [n, 1])));
  }, 150_000);
});

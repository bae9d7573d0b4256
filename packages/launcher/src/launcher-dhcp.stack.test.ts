// Network phase 2 end to end: inside a namespace holding the pod NIC eth0 and, as phase 1 leaves them, k6t-eth0
// and tap0, the launcher (own libvirtd, private root) plugs the guest into tap0 and serves DHCP on the bridge
// through @virt-launcher/dhcp with the configuration it works out itself, as KubeVirt's launcher does for
// masquerade (pkg/network/dhcp/masquerade.go): a stock virt-handler leaves no file for it, so neither does this
// test. The guest's serial console shows the lease it got from our server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connectLauncher } from './cmd-client.js';
import { NotifyStandIn, request } from './testing/handler-standin.js';
import { startLauncherInPrivateRoot } from './testing/launcher-process.js';
import { stopLauncherRun } from './testing/launcher-run.js';
import type { LauncherProcess } from './testing/launcher-process.js';
import { demoGuestVmi, haveDemoGuest, stageDemoGuest } from './testing/demo-guest.js';

const ns = `vlt-launcher-${randomBytes(3).toString('hex')}`;
const ip = (...args: string[]) => execFileSync('ip', ['-n', ns, ...args], { stdio: 'pipe' });

function vmi(uid: string): Buffer {
  return demoGuestVmi(uid, {
    name: 'netguest',
    containerDisk: false,
    interfaces: [{ name: 'default', masquerade: {} }],
    networks: [{ name: 'default', pod: {} }],
    terminationGracePeriodSeconds: 5,
  });
}

/**
 * A launcher of the VMI `name`/`uid` in its own private root, inside the network namespace `netns` (as the pod's
 * processes are), reporting to `notify`; resolves once it is ready. TCG on any host: no /dev/kvm in the root.
 */
async function readyLauncherIn(netns: string, name: string, uid: string, notify: NotifyStandIn) {
  const root = await mkdtemp('/tmp/vlt-launcher-root-');
  await stageDemoGuest(root, { containerDisk: false });
  await notify.listen(join(root, 'run/kubevirt/domain-notify-pipe.sock'));
  const launcher = startLauncherInPrivateRoot(
    root,
    'none',
    ['--name', name, '--namespace', 'default', '--uid', uid, '--allow-emulation'],
    ['ip', 'netns', 'exec', netns],
  );
  await launcher.waitForLog('Marked as ready', 90_000);
  return { root, launcher };
}

function readConsole(path: string, until: RegExp, timeoutMs = 120_000): Promise<string> {
  return new Promise((resolveP, reject) => {
    let text = '';
    const deadline = Date.now() + timeoutMs;
    const attempt = () => {
      const sock = connect(path);
      sock.on('data', (d) => {
        text += d.toString();
        if (until.test(text)) {
          sock.destroy();
          resolveP(text);
        }
      });
      sock.on('error', () =>
        Date.now() > deadline ? reject(new Error(`no console: ${text}`)) : setTimeout(attempt, 200),
      );
    };
    attempt();
  });
}

describe.skipIf(!haveDemoGuest)('virt-launcher DHCP for a masquerade NIC', () => {
  let root = '';
  let launcher: LauncherProcess | undefined;
  const notify = new NotifyStandIn();

  beforeAll(() => {
    execFileSync('ip', ['netns', 'add', ns]);
    ip('link', 'set', 'lo', 'up');
    // The pod NIC as the CNI leaves it; `ip netns exec` shows the launcher /etc/netns/NS/resolv.conf as the
    // pod's /etc/resolv.conf, as kubelet gives a pod its own.
    ip('link', 'add', 'eth0', 'type', 'veth', 'peer', 'name', 'eth0-cni');
    ip('link', 'set', 'eth0-cni', 'up');
    ip('link', 'set', 'eth0', 'mtu', '1400');
    ip('addr', 'add', '10.244.1.7/24', 'dev', 'eth0');
    ip('link', 'set', 'eth0', 'up');
    ip('link', 'add', 'k6t-eth0', 'type', 'bridge');
    ip('link', 'set', 'k6t-eth0', 'address', '02:00:00:00:00:00');
    ip('addr', 'add', '10.0.2.1/24', 'dev', 'k6t-eth0');
    ip('tuntap', 'add', 'tap0', 'mode', 'tap');
    ip('link', 'set', 'tap0', 'master', 'k6t-eth0');
    ip('link', 'set', 'tap0', 'up');
    ip('link', 'set', 'k6t-eth0', 'up');
  });

  beforeAll(async () => {
    await mkdir(`/etc/netns/${ns}`, { recursive: true });
    await writeFile(`/etc/netns/${ns}/resolv.conf`, 'search default.svc.cluster.local\nnameserver 192.0.2.53\n');
  });

  afterAll(async () => {
    await stopLauncherRun({ launcher, notify, root });
    execFileSync('ip', ['netns', 'del', ns]);
    await rm(`/etc/netns/${ns}`, { recursive: true, force: true });
  }, 30_000);

  it('serves the guest its lease on k6t-eth0 and marks dhcp_started', async () => {
    ({ root, launcher } = await readyLauncherIn(ns, 'netguest', 'u-net', notify));
    const client = await connectLauncher(launcher.readySocket);
    const res = await client.call('syncVirtualMachine', request(vmi('u-net')), 60_000);
    expect(res).toEqual({ success: true, message: '' });
    await launcher.waitForLog('DHCP server started on k6t-eth0');
    const console = await readConsole(
      join(root, 'run/kubevirt-private/u-net/virt-serial0'),
      // The whole lease line: the console can deliver it in two chunks.
      /VLT-GUEST: (lease[^\n]*\n|ready)/,
    );
    expect(console).toMatch(/VLT-GUEST: lease ip=10\.0\.2\.2 router=10\.0\.2\.1 dns=192\.0\.2\.53 mtu=1400/);
    expect((await readdir(join(root, 'run/kubevirt-private'))).filter((f) => f.startsWith('vif-cache'))).toEqual([]);
    expect((await stat(join(root, 'run/kubevirt-private/dhcp_started-eth0'))).isFile()).toBe(true);
    client.close();
  }, 240_000);
});

// A bridge NIC's lease starts from the vif-cache a stock virt-handler writes (pkg/network/setup/netpod/
// discoverbridge.go); one that is missing, truncated, not JSON or mistyped fails the Sync naming the file and the
// field, defines and starts nothing, and the launcher keeps serving.
describe('virt-launcher with a broken vif-cache for a bridge NIC', () => {
  const bns = `vlt-launcher-${randomBytes(3).toString('hex')}`;
  const bip = (...args: string[]) => execFileSync('ip', ['-n', bns, ...args], { stdio: 'pipe' });
  let root = '';
  let launcher: LauncherProcess | undefined;
  const notify = new NotifyStandIn();

  beforeAll(() => {
    // What phase 1 of the bridge binding leaves: eth0 renamed eth0-nic and enslaved to k6t-eth0, tap0 beside it.
    execFileSync('ip', ['netns', 'add', bns]);
    bip('link', 'add', 'eth0-nic', 'type', 'veth', 'peer', 'name', 'eth0-cni');
    bip('link', 'add', 'k6t-eth0', 'type', 'bridge');
    bip('link', 'set', 'eth0-nic', 'master', 'k6t-eth0');
    bip('tuntap', 'add', 'tap0', 'mode', 'tap');
    bip('link', 'set', 'tap0', 'master', 'k6t-eth0');
    for (const l of ['lo', 'eth0-cni', 'eth0-nic', 'tap0', 'k6t-eth0']) bip('link', 'set', l, 'up');
  });

  afterAll(async () => {
    await stopLauncherRun({ launcher, notify, root });
    execFileSync('ip', ['netns', 'del', bns]);
  }, 30_000);

  it('answers success:false naming the file and the field, starts nothing, and keeps serving', async () => {
    ({ root, launcher } = await readyLauncherIn(bns, 'bridged', 'u-br', notify));
    const client = await connectLauncher(launcher.readySocket);
    const vmiJson = demoGuestVmi('u-br', {
      name: 'bridged',
      containerDisk: false,
      interfaces: [{ name: 'default', bridge: {} }],
      networks: [{ name: 'default', pod: {} }],
      terminationGracePeriodSeconds: 5,
    });
    const cache = join(root, 'run/kubevirt-private/vif-cache-eth0.json');
    const good = readFileSync(
      join(dirname(fileURLToPath(import.meta.url)), '../../shared/testdata/kubevirt-vif-cache/ipv4-mac-gateway.gojson'),
      'utf8',
    );
    for (const [text, says] of [
      [undefined, /vif-cache-eth0\.json\): missing/],
      [good.slice(0, 100), /vif-cache-eth0\.json\)/],
      ['not json', /vif-cache-eth0\.json\)/],
      [good.replace(/"Mtu": \d+/, '"Mtu": "1500"'), /vif-cache-eth0\.json\): field Mtu/],
    ] as const) {
      if (text === undefined) await rm(cache, { force: true });
      else await writeFile(cache, text);
      const res = await client.call('syncVirtualMachine', request(vmiJson), 60_000);
      expect(res.success, text?.slice(0, 30)).toBe(false);
      expect(res.message).toMatch(says);
      expect((await client.call('getDomain', {}, 20_000)).domain).toBe('');
      expect(await client.call('ping', {}, 10_000)).toEqual({ success: true, message: '' });
    }
    expect(await readdir(join(root, 'run/kubevirt-private'))).not.toContain('dhcp_started-eth0');
    client.close();
  }, 240_000);
});

// The whole system on this machine: virt-pod runs examples/vmi-demo.yaml through monitor → launcher → libvirtd →
// QEMU/TCG; the guest gets its lease from our DHCP server, reaches the node through masquerade, serves port 80,
// and everything the runner made is gone afterwards.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
let guestDir: string;

const ourNamespaces = () =>
  execFileSync('ip', ['netns', 'list'], { encoding: 'utf8' })
    .split('\n')
    .map((l) => l.split(' ')[0]!)
    .filter((n) => /^vlt-(pod|node)-[0-9a-f]{6}$/.test(n));

beforeAll(() => {
  guestDir = path.join(repo, '.cache/demo-guest');
  execFileSync('bash', [path.join(repo, 'tools/demo-guest/build.sh'), guestDir], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
});

describe('virt-pod run examples/vmi-demo.yaml --until-lease', () => {
  it('boots the guest, which gets 10.0.2.2 from our DHCP server and reaches the node through masquerade', () => {
    const before = new Set(ourNamespaces());
    const tmpBefore = new Set(fs.readdirSync(os.tmpdir()).filter((f) => f.startsWith('virt-pod-demo-')));
    const r = spawnSync(
      process.execPath,
      [
        path.join(repo, 'tools/pod/dist/cli.js'),
        'run',
        path.join(repo, 'examples/vmi-demo.yaml'),
        '--container-disk',
        `rootdisk=${guestDir}/containerdisk.img`,
        '--kernel-boot-dir',
        guestDir,
        '--until-lease',
        '--timeout',
        '180',
      ],
      { encoding: 'utf8', timeout: 280_000 },
    );
    const out = r.stdout + r.stderr;
    expect(r.status, out).toBe(0);
    expect(out).toMatch(/guest lease: ip=10\.0\.2\.2 router=10\.0\.2\.1 /);
    expect(out).toMatch(/mtu=1450/);
    expect(out).toMatch(/search=default\.svc\.cluster\.local,svc\.cluster\.local,cluster\.local/);
    expect(out).toMatch(/node received "hello-from-guest" from 192\.0\.2\.10 /);
    expect(out).toMatch(/node → pod:80 reached the guest's web server: "hello from demo"/);
    expect(out).toMatch(/Domain defined\./);
    expect(out).toMatch(/Domain started\./);
    expect(out).toMatch(/pod exited with 0/);
    // Nothing the runner made is left: namespaces, /etc/netns entries, run-root.
    const leftover = ourNamespaces().filter((n) => !before.has(n));
    expect(leftover).toEqual([]);
    expect(fs.readdirSync('/etc/netns').filter((n) => leftover.includes(n))).toEqual([]);
    expect(fs.readdirSync(os.tmpdir()).filter((f) => f.startsWith('virt-pod-demo-') && !tmpBefore.has(f))).toEqual([]);
  });
});

// Boots the built guest under TCG and reads its serial console: the markers must carry values this test chose
// (instance id, user-data token) or read from the built image (container disk marker), so they cannot pass by luck.
// The hypervisor is chosen, not inherited: bootGuest always runs QEMU with -accel tcg, so a host without KVM, with a
// working KVM or with a /dev/kvm that cannot run a vCPU boots the guest the same way.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureGuest, type DemoGuest } from './guest.js';
import { bootGuest, type RunningGuest } from './qemu.js';

const run = promisify(execFile);
const repoDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
// Generous bounds: TCG on two cores shared with other suites; these are timeouts, never assertions.
const BOOT_BOUND_MS = 120_000;

let guest: DemoGuest;
let work: string;
const running: RunningGuest[] = [];

async function makeNoCloudIso(dir: string, instanceId: string, userData: string): Promise<string> {
  await writeFile(join(dir, 'meta-data'), JSON.stringify({ 'instance-id': instanceId, 'local-hostname': 'demo' }));
  await writeFile(join(dir, 'user-data'), userData);
  const iso = join(dir, 'nocloud.iso');
  await run('genisoimage', ['-quiet', '-output', iso, '-volid', 'cidata', '-joliet', '-rock', dir]);
  return iso;
}

/** The user-data script of examples/vmi-demo.yaml (its cloudInitNoCloud volume). */
async function exampleUserData(): Promise<string> {
  const vmi = parseYaml(await readFile(join(repoDir, 'examples', 'vmi-demo.yaml'), 'utf8')) as {
    spec: { volumes: Array<{ cloudInitNoCloud?: { userData: string } }> };
  };
  const data = vmi.spec.volumes.find((v) => v.cloudInitNoCloud)?.cloudInitNoCloud?.userData;
  if (!data) throw new Error('examples/vmi-demo.yaml has no cloudInitNoCloud userData');
  return data;
}

/** A loopback port free right now (QEMU binds it a moment later). */
async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address() as { port: number };
  await new Promise((resolve) => srv.close(resolve));
  return port;
}

beforeAll(async () => {
  guest = await ensureGuest();
  work = await mkdtemp(join(tmpdir(), 'vlt-demo-guest-'));
});

afterAll(async () => {
  for (const g of running) g.kill();
  await Promise.all(running.map((g) => g.exited));
  if (work) await rm(work, { recursive: true, force: true });
});

describe('build.sh', () => {
  it('produced a kernel, an initramfs and a container disk whose first line is the marker', async () => {
    expect((await stat(guest.kernel)).size).toBeGreaterThan(1 << 20);
    expect((await stat(guest.initrd)).size).toBeGreaterThan(100_000);
    const head = (await readFile(guest.containerDisk)).subarray(0, 64).toString('latin1');
    expect(guest.containerDiskMarker).not.toBe('');
    expect(head.split('\n')[0]).toBe(guest.containerDiskMarker);
    expect(guest.cmdline).toBe('console=ttyS0 quiet panic=-1 rdinit=/init');
  });

  it('is idempotent: a second run rebuilds nothing', async () => {
    const before = (await stat(guest.initrd)).mtimeMs;
    const again = await ensureGuest(guest.outDir);
    expect(again.buildLog).toContain('up to date');
    expect((await stat(guest.initrd)).mtimeMs).toBe(before);
  });
});

describe('boot under TCG', () => {
  it('prints booted, the container disk marker, the cloud-init instance id, runs user-data, and powers off on the ACPI button', async () => {
    const dir = await mkdtemp(join(work, 'ci-'));
    const instanceId = `demo-${randomBytes(4).toString('hex')}`;
    const token = randomBytes(6).toString('hex');
    const iso = await makeNoCloudIso(dir, instanceId, `#!/bin/sh\necho "user-data says ${token}"\n`);
    const monitorSocket = join(dir, 'monitor.sock');
    const g = bootGuest({
      kernel: guest.kernel,
      initrd: guest.initrd,
      append: guest.cmdline,
      disks: [guest.containerDisk, iso],
      nic: 'none',
      monitorSocket,
    });
    running.push(g);

    await g.waitFor(/VLT-GUEST: booted/, BOOT_BOUND_MS);
    const disk = await g.waitFor(/VLT-GUEST: containerdisk (\S+)\r?\n/, BOOT_BOUND_MS);
    expect(disk[1]).toBe(guest.containerDiskMarker);
    const ci = await g.waitFor(/VLT-GUEST: cloud-init instance-id=(\S+)\r?\n/, BOOT_BOUND_MS);
    expect(ci[1]).toBe(instanceId);
    await g.waitFor(new RegExp(`user-data says ${token}`), BOOT_BOUND_MS);
    await g.waitFor(/VLT-GUEST: cloud-init user-data exit=0/, BOOT_BOUND_MS);
    await g.waitFor(/VLT-GUEST: network none/, BOOT_BOUND_MS);
    await g.waitFor(/VLT-GUEST: ready/, BOOT_BOUND_MS);

    // The guest's acpid must turn QEMU's power button press into a power-off: QEMU then exits by itself (0).
    await g.monitor(monitorSocket, 'system_powerdown');
    await g.waitFor(/VLT-GUEST: power button, powering off/, BOOT_BOUND_MS);
    expect(await g.exited).toBe(0);
  });

  it('takes a DHCP lease on eth0, reaches the node named by vlt.probe, serves port 80 from the example user-data', async () => {
    // QEMU's user-mode network: its DHCP server leases 10.0.2.15 and 10.0.2.2 reaches the host's loopback,
    // where this test listens; a host forward on 127.0.0.1 reaches the guest's port 80. No traffic leaves the
    // machine. The cloud-init data is the user-data of examples/vmi-demo.yaml, so the example is checked too.
    const received: string[] = [];
    const server: Server = createServer((sock) => {
      sock.on('data', (d) => received.push(d.toString()));
      sock.on('end', () => sock.end());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    const dir = await mkdtemp(join(work, 'net-'));
    const iso = await makeNoCloudIso(dir, 'example', await exampleUserData());
    const httpPort = await freePort();
    const g = bootGuest({
      kernel: guest.kernel,
      initrd: guest.initrd,
      append: `${guest.cmdline} vlt.probe=10.0.2.2:${port}`,
      disks: [guest.containerDisk, iso],
      nic: `user,model=virtio-net-pci,hostfwd=tcp:127.0.0.1:${httpPort}-:80`,
      monitorSocket: join(dir, 'monitor.sock'),
    });
    running.push(g);
    try {
      await g.waitFor(/VLT-GUEST: user-data hello from demo/, BOOT_BOUND_MS);
      const lease = await g.waitFor(
        /VLT-GUEST: lease ip=(\S+) router=(\S+) dns=(\S+) mtu=(\S*) search=\S*\r?\n/,
        BOOT_BOUND_MS,
      );
      expect(lease.slice(1, 4)).toEqual(['10.0.2.15', '10.0.2.2', '10.0.2.3']);
      await g.waitFor(/VLT-GUEST: probe (ok|failed)/, BOOT_BOUND_MS);
      expect(g.console).toContain('VLT-GUEST: probe ok');
      expect(received.join('')).toBe('hello-from-guest\n');
      await g.waitFor(/VLT-GUEST: ready/, BOOT_BOUND_MS);
      const page = await fetch(`http://127.0.0.1:${httpPort}/`, { signal: AbortSignal.timeout(20_000) });
      expect(await page.text()).toBe('hello from demo\n');
    } finally {
      g.kill();
      await g.exited;
      server.close();
    }
  });
});

// Builds the image when no archive is there (or uses IMAGE_ARCHIVE), unpacks it and runs programs inside with chroot.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectLauncher } from '@virt-launcher/launcher';
import { unpackOciArchive, type UnpackedImage } from './oci.js';
import { POD_UID, startImageLauncher } from './nonroot-run.js';
import { processTree, runAsRootInImage } from './root-run.js';

const here = path.dirname(fileURLToPath(import.meta.url));
let work: string;
let image: UnpackedImage;
let archive: string;

beforeAll(() => {
  archive = process.env.IMAGE_ARCHIVE ?? path.resolve(here, '../../../.cache/image/virt-launcher-ts.oci.tar');
  if (!process.env.IMAGE_ARCHIVE) {
    execFileSync('bash', [path.resolve(here, '../build.sh')], { stdio: ['ignore', 'ignore', 'inherit'] });
  }
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'vlt-image-'));
  image = unpackOciArchive(archive, work);
});

afterAll(() => {
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

const inImage = (cmd: string[]) =>
  spawnSync('chroot', [image.rootfs, ...cmd], { encoding: 'utf8', env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' } });

describe('launcher image', () => {
  it('has virt-launcher-monitor as its entrypoint', () => {
    expect(image.config.config?.Entrypoint).toEqual(['/usr/bin/virt-launcher-monitor']);
  });

  it("runs the monitor's --help inside the image", () => {
    const r = inImage(['/usr/bin/virt-launcher-monitor', '--help']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout + r.stderr).toMatch(/virt-launcher-monitor/);
    expect(r.stdout + r.stderr).toMatch(/--grace-period-seconds/);
  });

  it('holds the launcher, its libvirt binding and the daemons it starts', () => {
    const launcher = inImage(['/usr/bin/virt-launcher', '--help']);
    expect(launcher.status, launcher.stderr).toBe(0);
    const binding = inImage([
      '/usr/bin/node',
      '--input-type=module',
      '-e',
      "const l = await import('/opt/virt-launcher/node_modules/@virt-launcher/libvirt/dist/index.js'); const c = await l.connect('test:///default'); console.log(await c.getLibVersion()); await c.close();",
    ]);
    expect(binding.status, binding.stderr).toBe(0);
    expect(binding.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    for (const daemon of [
      '/usr/sbin/libvirtd',
      '/usr/sbin/virtlogd',
      '/usr/bin/qemu-system-x86_64',
      '/usr/bin/qemu-img',
    ]) {
      expect(fs.existsSync(path.join(image.rootfs, daemon)), daemon).toBe(true);
    }
  });

  it('is Debian 13 with libvirt 11.3, QEMU 10.0 and the helpers a VMI may need (passt, virtiofsd, swtpm, OVMF)', () => {
    const osRelease = fs.readFileSync(path.join(image.rootfs, 'usr/lib/os-release'), 'utf8');
    expect(osRelease).toMatch(/^VERSION_ID="13"$/m);
    const packages = ['libvirt-daemon-driver-qemu', 'qemu-system-x86', 'passt', 'virtiofsd', 'swtpm', 'ovmf'];
    const query = inImage(['dpkg-query', '-W', '-f', '${Package} ${Version}\\n', ...packages]);
    expect(query.status, query.stderr).toBe(0);
    const version = Object.fromEntries(
      query.stdout
        .trim()
        .split('\n')
        .map((l) => l.split(' ')),
    );
    expect(version).toMatchObject({
      'libvirt-daemon-driver-qemu': expect.stringMatching(/^11\.3\./),
      'qemu-system-x86': expect.stringMatching(/^1:10\.0\./),
    });
    expect(Object.keys(version).sort()).toEqual([...packages].sort());
    // The programs libvirt starts for those devices run; the firmware files it points QEMU at are there.
    const runs: Array<[string, RegExp]> = [
      ['/usr/sbin/libvirtd', /\(libvirt\) 11\.3\./],
      ['/usr/bin/qemu-system-x86_64', /QEMU emulator version 10\.0\./],
      ['/usr/libexec/virtiofsd', /virtiofsd 1\./],
      ['/usr/bin/swtpm', /TPM emulator version/],
    ];
    for (const [bin, banner] of runs) {
      const r = inImage([bin, '--version']);
      expect(r.status, `${bin}: ${r.stderr}`).toBe(0);
      expect(r.stdout + r.stderr, bin).toMatch(banner);
    }
    const files = [
      'usr/bin/passt',
      'usr/bin/pasta',
      'usr/bin/swtpm_setup',
      'usr/bin/virsh',
      'usr/bin/node-labeller.sh',
    ];
    for (const file of files) expect(fs.statSync(path.join(image.rootfs, file)).mode & 0o111, file).not.toBe(0);
    for (const fd of ['OVMF_CODE_4M.fd', 'OVMF_VARS_4M.fd', 'OVMF_CODE_4M.secboot.fd']) {
      expect(fs.statSync(path.join(image.rootfs, 'usr/share/OVMF', fd)).size, fd).toBeGreaterThan(0);
    }
  });

  // virt-handler's init container (KubeVirt v1.9 pkg/virt-operator/resource/generate/components/daemonsets.go):
  // `/bin/sh -c node-labeller.sh` from this image, privileged, as root. The files' contents are checked against
  // virt-handler's parsing in the launcher package's node-labeller.stack.test.ts; here, that the image runs it.
  it("runs node-labeller.sh as virt-handler's init container does and writes the labeller's files", async () => {
    const env = { PREFERRED_VIRTTYPE: 'kvm', HYPERVISOR_DEVICE: 'kvm' };
    const r = await runAsRootInImage(image.rootfs, ['/bin/sh', '-c', 'node-labeller.sh'], env);
    const dir = path.join(image.rootfs, 'var/lib/kubevirt-node-labeller');
    expect(fs.readdirSync(dir).sort(), r.stderr).toEqual([
      'capabilities.xml',
      'supported_features.xml',
      'virsh_domcapabilities.xml',
    ]);
    // The root's /dev is a tmpfs: the script makes /dev/kvm there exactly when the host's kernel has KVM.
    const kernelHasKvm = /^\s*\d+ kvm$/m.test(fs.readFileSync('/proc/misc', 'utf8'));
    const domcaps = fs.readFileSync(path.join(dir, 'virsh_domcapabilities.xml'), 'utf8');
    expect(domcaps).toContain(`<domain>${kernelHasKvm ? 'kvm' : 'qemu'}</domain>`);
    expect(domcaps).toMatch(/<mode name='host-model' supported='yes'>/);
    expect(fs.readFileSync(path.join(dir, 'capabilities.xml'), 'utf8')).toMatch(
      /<machine[^>]*>pc-q35-10\.0<\/machine>/,
    );
  }, 150_000);

  it("runs as user 107 by default, as KubeVirt's launcher image does", () => {
    expect(image.config.config?.User).toBe('107');
  });

  it('ships a supported Node LTS (not the end-of-life Node 20) and runs the launcher on it', () => {
    const r = inImage(['/usr/bin/node', '--version']);
    expect(r.status, r.stderr).toBe(0);
    const major = Number(/^v(\d+)\./.exec(r.stdout.trim())?.[1]);
    // LTS lines are the even majors; 20 reached end of life in April 2026.
    expect(major).toBeGreaterThanOrEqual(22);
    expect(major % 2).toBe(0);
    const launcher = inImage(['/usr/bin/virt-launcher', '--help']);
    expect(launcher.status, launcher.stderr).toBe(0);
  });

  it('has the programs virt-controller runs at the paths it calls', () => {
    for (const bin of [
      'virt-launcher-monitor',
      'virt-launcher',
      'virt-tail',
      'container-disk',
      'virt-probe',
      'virt-freezer',
    ]) {
      const st = fs.statSync(path.join(image.rootfs, 'usr/bin', bin));
      expect(st.mode & 0o111, bin).not.toBe(0);
    }
    for (const help of [
      ['/usr/bin/virt-tail', '--help'],
      ['/usr/bin/virt-probe', '--help'],
      ['/usr/bin/virt-freezer', '--help'],
    ]) {
      const r = inImage(help);
      expect(r.status, `${help[0]}: ${r.stderr}`).toBe(0);
    }
    // virt-freezer without its flags: KubeVirt's exit code 1.
    expect(inImage(['/usr/bin/virt-freezer']).status).toBe(1);
  });

  it('runs the guest-console-log sidecar as uid 107, the user virt-controller gives it', async () => {
    const dir = fs.mkdtempSync(path.join(image.rootfs, 'tmp/vlt-image-tail-'));
    fs.chmodSync(dir, 0o755);
    fs.writeFileSync(path.join(dir, 'virt-serial0-log'), 'console line\n');
    const inside = '/' + path.relative(image.rootfs, path.join(dir, 'virt-serial0-log'));
    // chroot execs the wrapper, which execs node: the signal reaches virt-tail itself.
    const child = spawn('chroot', ['--userspec=107:107', image.rootfs, '/usr/bin/virt-tail', '--logfile', inside], {
      env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const exited = new Promise<number | null>((resolve, reject) => {
      child.on('error', reject);
      child.on('close', (code) => resolve(code));
    });
    const until = Date.now() + 30_000;
    while (!out.includes('\n') && child.exitCode === null && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 50));
    }
    // SIGTERM is how the kubelet ends the sidecar at the pod's end: exit code 0.
    child.kill('SIGTERM');
    const code = await exited;
    fs.rmSync(dir, { recursive: true, force: true });
    expect(out).toBe('console line\n');
    expect(code, err).toBe(0);
  });

  it('holds container-disk as the static executable itself, runnable with no runtime', () => {
    const bin = path.join(image.rootfs, 'usr/bin/container-disk');
    expect(execFileSync('file', ['-L', bin], { encoding: 'utf8' })).toMatch(/statically linked/);
    // As the init container uses it: copied into an otherwise empty root, where it must still run.
    const bare = fs.mkdtempSync(path.join(work, 'scratch-'));
    fs.mkdirSync(path.join(bare, 'usr/bin'), { recursive: true });
    fs.copyFileSync(bin, path.join(bare, 'usr/bin/container-disk'));
    fs.chmodSync(path.join(bare, 'usr/bin/container-disk'), 0o755);
    const r = spawnSync('chroot', [bare, '/usr/bin/container-disk', '--no-op'], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
  });

  it('starts its launcher as uid 107 with --run-as-nonroot until it is ready and answers Info', async () => {
    const args = ['--name', 'guest', '--namespace', 'default', '--uid', 'u-image', '--allow-emulation'];
    const l = startImageLauncher(image.rootfs, image.config.config?.Env ?? [], args);
    try {
      await l.waitForLine(/"msg":"Marked as ready"/, 120_000);
      // The code cache was written by the image's Node at build time (build.sh): V8 took it.
      expect(l.lines.find((line) => line.includes('"msg":"phase load done"'))).toContain('"codeCache":"accepted"');
      const connected = l.lines.find((line) => line.includes('"msg":"Connected to libvirt daemon"'));
      expect(connected).toContain('qemu+unix:///session?socket=/var/run/libvirt/virtqemud-sock');
      // connectLauncher dials launcher-sock and calls Info: the cmd server of the image's launcher answers.
      const client = await connectLauncher(l.readySocket);
      client.close();
      // What `ps` in the pod shows (KubeVirt's tests/vmi_configuration_test.go takes each command's first word):
      // the launcher (the process the test started: each wrapper execs the next) as /usr/bin/virt-launcher, not
      // node, and libvirtd as virtqemud.
      const procs = processTree(l.child.pid!);
      const launcher = procs.filter((p) => p.argv[0] === '/usr/bin/virt-launcher');
      expect(
        launcher.map((p) => p.comm),
        JSON.stringify(procs),
      ).toEqual(['virt-launcher']);
      expect(procs.filter((p) => p.argv[0] === 'virtqemud').map((p) => p.comm)).toEqual(['libvirtd']);
      // Written by the launcher as the pod's user, where a session-mode libvirtd reads it, with no user= line.
      const qemuConf = path.join(image.rootfs, 'run/kubevirt-private/libvirt/qemu.conf');
      expect(fs.statSync(qemuConf).uid).toBe(POD_UID);
      expect(fs.readFileSync(qemuConf, 'utf8')).not.toMatch(/^\s*user\s*=/m);
    } finally {
      l.child.kill('SIGTERM');
      const kill = setTimeout(() => l.child.kill('SIGKILL'), 30_000);
      await l.exited;
      clearTimeout(kill);
    }
  }, 180_000);

  it('reports its size', () => {
    const bytes = fs.statSync(archive).size;
    console.log(`image archive: ${(bytes / 2 ** 20).toFixed(0)} MiB, ${image.layers} layer(s)`);
    expect(bytes).toBeGreaterThan(50 * 2 ** 20);
  });
});

// The built CLI (dist/cli.js) as a person runs it: exit codes, stdout, stderr.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseXml } from './testing/xml-tree.js';

const pkg = fileURLToPath(new URL('..', import.meta.url));
const cli = `${pkg}dist/cli.js`;

function run(args: string[], input?: string) {
  return execa('node', [cli, ...args], { cwd: pkg, reject: false, input, stripFinalNewline: false });
}

beforeAll(async () => {
  if (!existsSync(cli)) await execa('npm', ['run', 'build'], { cwd: pkg });
}, 120_000);

describe('vmi-to-domain', () => {
  it('converts examples/vm-a.yaml to XML on stdout (exit 0, nothing on stderr)', async () => {
    const r = await run(['examples/vm-a.yaml']);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe('');
    const root = parseXml(r.stdout);
    expect(root.children.find((c) => c.name === 'name')?.text).toBe('demo_vm-a');
    expect(r.stdout).toContain('<target dev="tap0" managed="no"/>');
  });

  it('reads stdin with -, applies --context, prints JSON with --format json', async () => {
    const context = JSON.stringify({ architecture: 'arm64', paths: { kubevirtPrivateDir: '/rr/kp' } });
    const { writeFileSync, mkdtempSync } = await import('node:fs');
    const dir = mkdtempSync('/tmp/vlt-converter-');
    writeFileSync(`${dir}/ctx.json`, context);
    const yaml = (await import('node:fs')).readFileSync(`${pkg}examples/vm-a.yaml`, 'utf8');
    const r = await run(['-', '--context', `${dir}/ctx.json`, '--format', 'json'], yaml);
    expect(r.exitCode).toBe(0);
    const domain = JSON.parse(r.stdout);
    expect(domain.os.type).toMatchObject({ arch: 'aarch64', machine: 'virt' });
    expect(domain.devices.serials[0].path).toMatch(/^\/rr\/kp\//);
    (await import('node:fs')).rmSync(dir, { recursive: true, force: true });
  });

  it('a VMI of another architecture: refused naming spec.architecture, emulated when the context allows it', async () => {
    // s390x is never this machine's architecture (the CLI takes the host's from process.arch).
    const vmi = JSON.stringify({
      apiVersion: 'kubevirt.io/v1',
      kind: 'VirtualMachineInstance',
      metadata: { name: 'foreign', namespace: 'default' },
      spec: { architecture: 's390x', domain: { devices: {}, resources: { requests: { memory: '64Mi' } } } },
    });
    const refused = await run(['-'], vmi);
    expect(refused.exitCode).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(/^vmi-to-domain: spec\.architecture: "s390x" is not the host's architecture .*\n$/);
    const { writeFileSync, mkdtempSync, rmSync } = await import('node:fs');
    const dir = mkdtempSync('/tmp/vlt-converter-');
    writeFileSync(`${dir}/ctx.json`, JSON.stringify({ allowCrossArchEmulation: true }));
    const emulated = await run(['-', '--context', `${dir}/ctx.json`], vmi);
    rmSync(dir, { recursive: true, force: true });
    expect(emulated.exitCode).toBe(0);
    expect(emulated.stdout).toMatch(/^<domain type="qemu"/);
    expect(emulated.stdout).toContain('<emulator>/usr/bin/qemu-system-s390x</emulator>');
    expect(emulated.stdout).toContain('<type arch="s390x" machine="s390-ccw-virtio">hvm</type>');
  });

  it.each([
    [['examples/nope.yaml'], /^vmi-to-domain: cannot read examples\/nope.yaml: ENOENT\n$/],
    [['--format', 'yaml', 'examples/vm-a.yaml'], /^vmi-to-domain: --format must be xml or json, not yaml\n$/],
    [['--bogus'], /^vmi-to-domain: Unknown option '--bogus'.*\n$/],
  ])('bad usage %j: exit 2, one line on stderr, nothing on stdout', async (args, line) => {
    const r = await run(args);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(line);
  });

  it('a bad quantity: exit 2, the field path and value, no stack trace', async () => {
    const text = (await import('node:fs'))
      .readFileSync(`${pkg}examples/vm-a.yaml`, 'utf8')
      .replace('memory: 2Gi', 'memory: 2Gx');
    const r = await run(['-'], text);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('vmi-to-domain: spec.domain.resources.requests.memory: "2Gx" is not a quantity\n');
  });

  it('examples/vmi-demo.yaml with no context: a domain whose features start with <acpi/>', async () => {
    const r = await run(['../../examples/vmi-demo.yaml']);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/<features>\s*<acpi\/>/);
  });

  it('a disk and volume named ../../etc/x: exit 2 naming the field, nothing on stdout', async () => {
    const text = [
      'apiVersion: kubevirt.io/v1',
      'kind: VirtualMachineInstance',
      'metadata: {name: x}',
      'spec:',
      '  domain:',
      '    resources: {requests: {memory: 64Mi}}',
      '    devices: {disks: [{name: ok}]}',
      '  volumes: [{name: ok, emptyDisk: {capacity: 1Gi}}, {name: ../../etc/x, emptyDisk: {capacity: 1Gi}}]',
    ].join('\n');
    const r = await run(['-'], text);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^vmi-to-domain: spec\.volumes\[1\]\.name: "\.\.\/\.\.\/etc\/x" is not a DNS-1123 label/);
    expect(r.stderr.split('\n')).toHaveLength(2);
  });

  it('control characters from the input reach stderr escaped, on one line', async () => {
    const vmi = {
      apiVersion: 'kubevirt.io/v1',
      kind: 'VirtualMachineInstance',
      metadata: { name: 'x' },
      spec: { domain: { memory: { guest: '\u001b[2J\r\u2028' }, devices: {} } },
    };
    const r = await run(['-'], JSON.stringify(vmi));
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toBe('vmi-to-domain: spec.domain.memory.guest: "\\u001b[2J\\r\\u2028" is not a quantity\n');
  });

  it('cores: 1e20 is refused with exit 2 and the field named', async () => {
    const text = (await import('node:fs'))
      .readFileSync(`${pkg}examples/vm-a.yaml`, 'utf8')
      .replace(/cores: \d+/, 'cores: 1e20');
    expect(text).toContain('cores: 1e20');
    const r = await run(['-'], text);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/^vmi-to-domain: spec\.domain\.cpu\.cores: 100000000000000000000 is out of range/);
  });
});

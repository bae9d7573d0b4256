// The downwardMetrics disk and the ignition file on a real filesystem: layout a guest tool can verify,
// rewrites that keep the layout, and links planted at the names refused.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtemp, mkdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UnsafePathError } from './errors.js';
import { createIgnitionFile, ignitionPath } from './ignition.js';
import { METRICS_DISK_SIZE, createMetricsDisk, readMetricsDisk, writeMetrics } from './metrics-disk.js';

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vlt-ephemeral-disk-metrics-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('metrics disk (vhostmd0)', () => {
  it('is created as a 256 KiB file with the mvbd header and an empty, verified metrics document', async () => {
    const path = join(dir, 'downwardapi-disks', 'vhostmd0');
    expect(await createMetricsDisk(path)).toEqual({ path, created: true });
    expect((await stat(path)).size).toBe(METRICS_DISK_SIZE);
    const raw = await readFile(path);
    expect(raw.subarray(0, 4).toString('ascii')).toBe('mvbd');
    const read = await readMetricsDisk(path);
    expect(read.busy).toBe(false);
    expect(read.body).toBe('<metrics>\n</metrics>\n');
  });

  it('keeps an existing disk and rewrites its metrics with a matching checksum', async () => {
    const path = join(dir, 'vhostmd0');
    await createMetricsDisk(path);
    expect((await createMetricsDisk(path)).created).toBe(false);
    await writeMetrics(path, [
      { name: 'HostName', type: 'string', context: 'host', value: 'node<1>' },
      { name: 'Time', type: 'int64', context: 'host', value: '1700000000', unit: 's' },
    ]);
    const read = await readMetricsDisk(path);
    expect(read.busy).toBe(false);
    expect(read.body).toContain('<metric type="string" context="host">');
    expect(read.body).toContain('<name>HostName</name>');
    expect(read.body).toContain('<value>node&#60;1&#62;</value>');
    expect(read.body).toContain('<metric type="int64" context="host" unit="s">');
    // A shorter rewrite leaves no tail of the longer one inside the declared body.
    await writeMetrics(path, []);
    expect((await readMetricsDisk(path)).body).toBe('<metrics>\n</metrics>\n');
    expect((await stat(path)).size).toBe(METRICS_DISK_SIZE);
  });

  it('refuses a symlink planted at the disk name, leaving its target untouched', async () => {
    const target = join(dir, 'victim');
    await writeFile(target, 'keep');
    const path = join(dir, 'vhostmd0');
    await symlink(target, path);
    await expect(createMetricsDisk(path)).rejects.toBeInstanceOf(UnsafePathError);
    await expect(writeMetrics(path, [])).rejects.toBeInstanceOf(UnsafePathError);
    expect(await readFile(target, 'utf8')).toBe('keep');
  });
});

describe('ignition data file', () => {
  it('writes data.ign under ignition-data/<ns>/<name> and replaces it on the next start', async () => {
    const path = ignitionPath(dir, 'default', 'vm1');
    expect(path).toBe(join(dir, 'ignition-data', 'default', 'vm1', 'data.ign'));
    await createIgnitionFile({ ephemeralDir: dir, namespace: 'default', name: 'vm1', data: '{"ignition":{}}' });
    expect(await readFile(path, 'utf8')).toBe('{"ignition":{}}');
    await createIgnitionFile({ ephemeralDir: dir, namespace: 'default', name: 'vm1', data: '{"v":2}' });
    expect(await readFile(path, 'utf8')).toBe('{"v":2}');
  });

  it('replaces a planted link at data.ign instead of writing through it', async () => {
    const target = join(dir, 'victim');
    await writeFile(target, 'keep');
    await mkdir(join(dir, 'ignition-data', 'default', 'vm1'), { recursive: true });
    await symlink(target, ignitionPath(dir, 'default', 'vm1'));
    await createIgnitionFile({ ephemeralDir: dir, namespace: 'default', name: 'vm1', data: 'x' });
    expect(await readFile(target, 'utf8')).toBe('keep');
    expect(await readFile(ignitionPath(dir, 'default', 'vm1'), 'utf8')).toBe('x');
  });

  it('refuses a namespace that would leave its directory', async () => {
    await expect(createIgnitionFile({ ephemeralDir: dir, namespace: '../x', name: 'vm1', data: 'x' })).rejects.toThrow(
      /namespace/,
    );
  });
});

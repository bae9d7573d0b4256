import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeConnection } from '../../testing/fake-connection.js';
import { testSyncEnv } from '../../testing/sync-env.js';
import { parseVmiRequest } from '../../vmi.js';
import { probeHost } from './gather-context.js';
import {
  MAX_POD_CPUS,
  PodCpuSetError,
  parseCpuList,
  podCpuSetPath,
  readPodCpuSet,
  wantsDedicatedCpus,
} from './pod-cpuset.js';

describe('parseCpuList (cpuset(7) list format)', () => {
  it('single CPUs, ranges and a mix come out sorted and distinct', () => {
    expect(parseCpuList('3')).toEqual([3]);
    expect(parseCpuList('0-3')).toEqual([0, 1, 2, 3]);
    expect(parseCpuList('8,2-4,10-11\n')).toEqual([2, 3, 4, 8, 10, 11]);
    expect(parseCpuList('1-2,2,1')).toEqual([1, 2]);
  });

  it.each([
    ['', 'is empty'],
    ['  \n', 'is empty'],
    ['a', 'is not a CPU list'],
    ['1,,2', 'is not a CPU list'],
    ['1-', 'is not a CPU list'],
    ['-1', 'is not a CPU list'],
    ['1 - 3', 'is not a CPU list'],
    ['5-2', 'has a reversed range 5-2'],
    [`0-${MAX_POD_CPUS}`, `lists more than ${MAX_POD_CPUS} CPUs`],
  ])('refuses %j with a typed error naming the source and the value', (text, reason) => {
    const err = (() => {
      try {
        parseCpuList(text, '/cg/cpuset.cpus.effective');
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(err).toBeInstanceOf(PodCpuSetError);
    expect((err as PodCpuSetError).path).toBe('/cg/cpuset.cpus.effective');
    expect((err as PodCpuSetError).value).toBe(text.trim());
    expect((err as Error).message).toContain(reason);
  });
});

describe('readPodCpuSet: the pod cgroup file, v2 or v1', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'vlt-launcher-cpuset-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('cgroup v2 (cgroup.controllers at the root): cpuset.cpus.effective', async () => {
    const root = join(dir, 'v2');
    await mkdir(root);
    await writeFile(join(root, 'cgroup.controllers'), 'cpuset cpu memory\n');
    await writeFile(join(root, 'cpuset.cpus.effective'), '2-3,6\n');
    expect(await podCpuSetPath(root)).toBe(join(root, 'cpuset.cpus.effective'));
    expect(await readPodCpuSet(root)).toEqual([2, 3, 6]);
  });

  it('cgroup v1: cpuset/cpuset.cpus', async () => {
    const root = join(dir, 'v1');
    await mkdir(join(root, 'cpuset'), { recursive: true });
    await writeFile(join(root, 'cpuset', 'cpuset.cpus'), '0-1\n');
    expect(await podCpuSetPath(root)).toBe(join(root, 'cpuset', 'cpuset.cpus'));
    expect(await readPodCpuSet(root)).toEqual([0, 1]);
  });

  it('a missing file (no cpuset controller) is a typed error naming the path', async () => {
    const root = join(dir, 'none');
    await mkdir(root);
    await writeFile(join(root, 'cgroup.controllers'), 'memory\n');
    const err = await readPodCpuSet(root).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PodCpuSetError);
    expect((err as PodCpuSetError).path).toBe(join(root, 'cpuset.cpus.effective'));
    expect((err as Error).message).toContain('ENOENT');
  });
});

describe('wantsDedicatedCpus', () => {
  const view = (cpu: unknown) => ({ raw: Buffer.from(JSON.stringify({ spec: { domain: { cpu } } })) });

  it('only dedicatedCpuPlacement: true asks for the pod cpuset', () => {
    expect(wantsDedicatedCpus(view({ dedicatedCpuPlacement: true, cores: 2 }))).toBe(true);
    expect(wantsDedicatedCpus(view({ dedicatedCpuPlacement: false }))).toBe(false);
    expect(wantsDedicatedCpus(view({ dedicatedCpuPlacement: 'true' }))).toBe(false);
    expect(wantsDedicatedCpus(view(undefined))).toBe(false);
  });
});

describe('probeHost reads the pod cpuset only for dedicated placement', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'vlt-launcher-cpuset-probe-'));
    await writeFile(join(dir, 'cgroup.controllers'), 'cpuset\n');
    await writeFile(join(dir, 'cpuset.cpus.effective'), '5,3-4\n');
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const vmiWith = (cpu: Record<string, unknown>) =>
    parseVmiRequest(
      Buffer.from(JSON.stringify({ metadata: { name: 'vm', namespace: 'ns', uid: 'u' }, spec: { domain: { cpu } } })),
    );

  async function probe(cpu: Record<string, unknown>, cgroupRoot: string) {
    const env = { ...testSyncEnv(await FakeConnection.open(), join(dir, 'run')), cgroupRoot };
    return probeHost(env, vmiWith(cpu));
  }

  it('a dedicated VMI gets the sorted set of the cgroup it is pointed at', async () => {
    expect((await probe({ cores: 3, dedicatedCpuPlacement: true }, dir)).podCpuSet).toEqual([3, 4, 5]);
  });

  it('another VMI never reads it: no cpuset file is no error', async () => {
    expect((await probe({ cores: 3 }, join(dir, 'absent'))).podCpuSet).toBeUndefined();
  });

  it('a dedicated VMI without a readable cpuset fails the probe with PodCpuSetError', async () => {
    const err = await probe({ dedicatedCpuPlacement: true }, join(dir, 'absent')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PodCpuSetError);
  });
});

// Two or more `virt-netsetup masquerade` runs on one namespace at the same time (issue: one reported success
// while the other's rollback deleted the bridge, tap and nat table). The runs are serialised per namespace and
// a rollback only undoes what its own run made, so every run succeeds and everything is in place afterwards.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { spawn } from 'node:child_process';
import { Topology, sh } from './testing/topology.js';
import { lockNetns } from './netns-lock.js';

// The bin as users run it (it loads the bundle of dist/cli.js).
const cli = fileURLToPath(new URL('../bin/virt-netsetup.js', import.meta.url));
const t = new Topology();

beforeAll(async () => {
  await t.create();
}, 60_000);

afterAll(async () => {
  await t.destroy();
});

const masquerade = () =>
  execa(process.execPath, [cli, 'masquerade', '--netns', t.pod, '--pod-iface', 'eth0'], {
    reject: false,
  });

async function objects(): Promise<{ links: string[]; tables: string }> {
  const links = (JSON.parse(await sh('ip', '-n', t.pod, '-j', 'link')) as Array<{ ifname: string }>).map(
    (l) => l.ifname,
  );
  const tables = await sh('ip', 'netns', 'exec', t.pod, 'nft', 'list', 'tables');
  return { links, tables };
}

describe('concurrent masquerade runs on one namespace', () => {
  it.each([1, 2, 3])(
    'round %i: four runs at once all succeed and leave bridge, tap and table',
    async () => {
      const runs = await Promise.all([masquerade(), masquerade(), masquerade(), masquerade()]);
      for (const r of runs) expect({ code: r.exitCode, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
      const { links, tables } = await objects();
      expect(links).toEqual(expect.arrayContaining(['k6t-eth0', 'tap0']));
      expect(tables).toMatch(/^table ip nat$/m);
      // Next round starts from nothing again.
      await execa(process.execPath, [cli, 'teardown', '--netns', t.pod, '--pod-iface', 'eth0']);
      const after = await objects();
      expect(after.links).not.toContain('k6t-eth0');
      expect(after.tables).not.toMatch(/^table ip nat$/m);
    },
    60_000,
  );

  it('a run waits while another holds the lock, and a SIGKILLed holder leaves no stale lock', async () => {
    const release = await lockNetns(t.pod);
    const run = masquerade();
    let finished = false;
    void run.then(() => (finished = true));
    // While we hold the lock the run cannot have changed anything (state is read under the lock).
    await new Promise((r) => setTimeout(r, 1500));
    expect(finished).toBe(false);
    expect((await objects()).links).not.toContain('k6t-eth0');
    await release();
    expect((await run).exitCode).toBe(0);
    expect((await objects()).links).toContain('k6t-eth0');

    // A holder killed by SIGKILL: the kernel drops its flock, the next run gets the lock.
    const face = new URL('../dist/index.js', import.meta.url).href;
    const holder = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const m = await import(${JSON.stringify(face)}); await m.lockNetns(${JSON.stringify(t.pod)}); console.log('held'); setInterval(() => {}, 1000);`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await new Promise<void>((r) => holder.stdout.once('data', () => r()));
    holder.kill('SIGKILL');
    const again = await lockNetns(t.pod, { timeoutSeconds: 20 });
    await again();
    await execa(process.execPath, [cli, 'teardown', '--netns', t.pod, '--pod-iface', 'eth0']);
  }, 60_000);
});

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { VirtualMachineInstance } from '@virt-launcher/converter';
import { parseRunArgs, UsageError } from './args.js';
import { HotplugError, prepareHotplugVolumes, removeUnpluggedVolumes, secondaryTapName } from './hotplug.js';
import { podLayout } from './layout.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'vlt-pod-hotplug-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

const vmi = (volumes: object[]) =>
  ({ metadata: { name: 'g' }, spec: { domain: { devices: {} }, volumes } }) as unknown as VirtualMachineInstance;

describe('--watch and --volume', () => {
  it('parses NAME=FILE pairs and refuses malformed ones or --watch with --until-lease', () => {
    const args = parseRunArgs(['run', 'vmi.yaml', '--watch', '--volume', 'hp=/tmp/hp.img']);
    expect(args.watch).toBe(true);
    expect([...args.volumes]).toEqual([['hp', '/tmp/hp.img']]);
    expect(parseRunArgs(['run', 'vmi.yaml']).watch).toBe(false);
    expect(() => parseRunArgs(['run', 'vmi.yaml', '--volume', 'hp'])).toThrow(UsageError);
    expect(() => parseRunArgs(['run', 'vmi.yaml', '--watch', '--until-lease'])).toThrow(/exclude each other/);
  });
});

describe('hotplug volumes as virt-handler prepares them', () => {
  const layout = podLayout(root);
  const file = path.join(root, 'hp-source.img');
  fs.writeFileSync(file, 'x');
  const hp = { name: 'hp', persistentVolumeClaim: { claimName: 'c', hotpluggable: true } };
  const disk = { name: 'rootdisk', containerDisk: { image: 'demo' } };

  it('puts the file at the hotplug path and writes volumeStatus with hotplugVolume for it only', () => {
    const out = prepareHotplugVolumes(vmi([disk, hp]), layout, new Map([['hp', file]]), undefined);
    expect((out.status as { volumeStatus: unknown[] }).volumeStatus).toEqual([
      { name: 'rootdisk', target: '', phase: 'Ready' },
      { name: 'hp', target: '', phase: 'Ready', hotplugVolume: { attachPodName: 'virt-pod-hotplug' } },
    ]);
    const placed = layout.hostPath('/var/run/kubevirt/hotplug-disks/hp.img');
    expect(fs.readFileSync(placed, 'utf8')).toBe('x');
    // Unplugged from the VMI: the file goes, as virt-handler unmounts it.
    expect(removeUnpluggedVolumes(vmi([disk]), layout)).toEqual(['hp.img']);
    expect(fs.existsSync(placed)).toBe(false);
  });

  it('a hotpluggable volume without --volume, or with a missing file, is refused by name', () => {
    expect(() => prepareHotplugVolumes(vmi([hp]), layout, new Map(), undefined)).toThrow(HotplugError);
    expect(() => prepareHotplugVolumes(vmi([hp]), layout, new Map(), undefined)).toThrow(/--volume hp=FILE/);
    expect(() => prepareHotplugVolumes(vmi([hp]), layout, new Map([['hp', '/nonexistent']]), undefined)).toThrow(
      /--volume hp=\/nonexistent: no such file/,
    );
  });

  it("names a secondary network's tap as the launcher expects it", () => {
    expect(secondaryTapName('blue')).toMatch(/^tap[0-9a-f]{11}$/);
  });
});

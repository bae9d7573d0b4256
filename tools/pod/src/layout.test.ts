import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { VirtualMachineInstance } from '@virt-launcher/converter';
import { LayoutError, placeContainerDisks, podLayout } from './layout.js';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vlt-pod-layout-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const vmi = (extra: object = {}): VirtualMachineInstance =>
  ({
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachineInstance',
    metadata: { name: 'v', namespace: 'ns', uid: 'u' },
    spec: {
      domain: { devices: {}, ...extra },
      volumes: [
        { name: 'cloud', cloudInitNoCloud: { userData: 'x' } },
        { name: 'root', containerDisk: { image: 'img' } },
      ],
    },
  }) as unknown as VirtualMachineInstance;

describe('podLayout', () => {
  it('maps /var/run and /run paths into the run-root', () => {
    const l = podLayout('/r');
    expect(l.hostPath('/var/run/kubevirt/sockets/launcher-sock')).toBe('/r/run/kubevirt/sockets/launcher-sock');
    expect(l.hostPath('/run/libvirt/virtqemud-sock')).toBe('/r/run/libvirt/virtqemud-sock');
  });
});

describe('placeContainerDisks', () => {
  it('puts each container disk at disk_<volume index>.img with its content', () => {
    const img = path.join(dir, 'root.img');
    fs.writeFileSync(img, 'marker-123');
    const l = podLayout(path.join(dir, 'rr'));
    const placed = placeContainerDisks(l, vmi(), new Map([['root', img]]), undefined);
    expect(placed).toEqual(['root → disk_1.img']);
    expect(fs.readFileSync(l.hostPath('/var/run/kubevirt/container-disks/disk_1.img'), 'utf8')).toBe('marker-123');
  });

  it('names the volume that lacks an image, and an image for no volume', () => {
    const l = podLayout(path.join(dir, 'rr'));
    expect(() => placeContainerDisks(l, vmi(), new Map(), undefined)).toThrow(
      /volume root: containerDisk needs --container-disk root=/,
    );
    const img = path.join(dir, 'x.img');
    fs.writeFileSync(img, '');
    expect(() =>
      placeContainerDisks(
        l,
        vmi(),
        new Map([
          ['root', img],
          ['cloud', img],
        ]),
        undefined,
      ),
    ).toThrow(/--container-disk cloud: the VMI has no containerDisk volume/);
    expect(() => placeContainerDisks(l, vmi(), new Map([['root', path.join(dir, 'missing.img')]]), undefined)).toThrow(
      LayoutError,
    );
  });

  it('finds kernel boot artifacts by path or by basename', () => {
    const kdir = path.join(dir, 'k');
    fs.mkdirSync(path.join(kdir, 'boot'), { recursive: true });
    fs.writeFileSync(path.join(kdir, 'boot', 'vmlinuz'), 'kernel');
    fs.writeFileSync(path.join(kdir, 'initrd.gz'), 'initrd');
    const img = path.join(dir, 'root.img');
    fs.writeFileSync(img, '');
    const v = vmi({
      firmware: { kernelBoot: { container: { image: 'k', kernelPath: '/boot/vmlinuz', initrdPath: '/x/initrd.gz' } } },
    });
    const l = podLayout(path.join(dir, 'rr'));
    placeContainerDisks(l, v, new Map([['root', img]]), kdir);
    expect(fs.readFileSync(l.hostPath('/var/run/kubevirt/container-disks/kernel-boot/vmlinuz'), 'utf8')).toBe('kernel');
    expect(fs.readFileSync(l.hostPath('/var/run/kubevirt/container-disks/kernel-boot/initrd.gz'), 'utf8')).toBe(
      'initrd',
    );
    expect(() => placeContainerDisks(l, v, new Map([['root', img]]), undefined)).toThrow(/--kernel-boot-dir/);
  });
});

import { describe, expect, it } from 'vitest';
import { run, vmi } from '../testing/fixture.js';
import type { Disk, Volume } from '../vmi/types.js';
import { disks } from './disks.js';

function one(disk: Disk, volume: Volume | undefined, ctx = {}) {
  const v = vmi({ devices: { disks: [disk] } }, { volumes: volume ? [volume] : [] });
  return run(disks, v, ctx).devices.disks[0];
}

describe('disks', () => {
  it('block PVC: /dev/<vol>, raw, cache kept, discard unmap', () => {
    const d = one(
      { name: 'p', disk: { bus: 'sata' }, cache: 'writethrough' },
      { name: 'p', persistentVolumeClaim: { claimName: 'c' } },
      { isBlockPvc: { p: true } },
    );
    expect(d).toMatchObject({
      type: 'block',
      source: { dev: '/dev/p' },
      target: { bus: 'sata', dev: 'sda' },
      driver: { type: 'raw', cache: 'writethrough', discard: 'unmap' },
    });
  });
  it('filesystem PVC and the write layer of a container disk follow the paths in the context', () => {
    const paths = { kubevirtPrivateDir: '/rr/kp', ephemeralDiskDir: '/rr/ed', containerDiskDir: '/rr/cd' };
    expect(
      one({ name: 'p', disk: { bus: 'virtio' } }, { name: 'p', persistentVolumeClaim: { claimName: 'c' } }, { paths })
        ?.source.file,
    ).toBe('/rr/kp/vmi-disks/p/disk.img');
    const c = one(
      { name: 'c', disk: { bus: 'virtio' } },
      { name: 'c', containerDisk: { image: 'i' } },
      { paths, disksInfo: { c: { format: 'raw', backingFilename: '', actualSize: 0n, virtualSize: 0n } } },
    );
    expect(c).toMatchObject({
      source: { file: '/rr/ed/disk-data/c/disk.qcow2' },
      driver: { type: 'qcow2' },
      backingStore: { type: 'file', format: 'raw', source: { file: '/rr/cd/disk_0.img' } },
    });
  });
  it('container disk without disk info is an error naming the volume', () => {
    expect(() => one({ name: 'c', disk: { bus: 'virtio' } }, { name: 'c', containerDisk: { image: 'i' } })).toThrow(
      'spec.volumes[0].containerDisk',
    );
  });
  it.each([
    [{ emptyDisk: { capacity: '1Gi' } }, '/var/run/libvirt/empty-disks/v.qcow2'],
    [{ cloudInitNoCloud: {} }, '/var/run/kubevirt-ephemeral-disks/cloud-init-data/ns/vm/noCloud.iso'],
    [{ cloudInitConfigDrive: {} }, '/var/run/kubevirt-ephemeral-disks/cloud-init-data/ns/vm/configdrive.iso'],
    [{ configMap: { name: 'x' } }, '/var/run/kubevirt-private/config-map-disks/v.iso'],
    [{ secret: { secretName: 'x' } }, '/var/run/kubevirt-private/secret-disks/v.iso'],
    [{ downwardAPI: {} }, '/var/run/kubevirt-private/downwardapi-disks/v.iso'],
    [{ serviceAccount: {} }, '/var/run/kubevirt-private/service-account-disk/service-account.iso'],
    [{ sysprep: {} }, '/var/run/kubevirt-private/sysprep-disks/v.iso'],
    [{ hostDisk: { path: '/some/where/img.raw' } }, '/var/run/kubevirt-private/vmi-disks/v/img.raw'],
  ])('volume %j lives at %s', (source, path) => {
    expect(one({ name: 'v', disk: { bus: 'virtio' } }, { name: 'v', ...source } as Volume)?.source.file).toBe(path);
  });
  // converter.go (KubeVirt v1.9.0), Convert_v1_Disk_To_api_Disk: the CDRom branch assigns no SCSI address.
  it('cdrom: readonly unless readonly false, tray, no discard; on scsi no drive address', () => {
    const c = one({ name: 'c', cdrom: { bus: 'scsi', tray: 'open' } }, { name: 'c', configMap: { name: 'x' } });
    expect(c).toMatchObject({
      device: 'cdrom',
      readonly: true,
      target: { tray: 'open', dev: 'sda' },
    });
    expect(c?.address).toBeUndefined();
    expect(c?.driver.discard).toBeUndefined();
    expect(one({ name: 'c', cdrom: { bus: 'sata', readonly: false } }, { name: 'c', configMap: {} })?.readonly).toBe(
      false,
    );
  });
  it('preallocated volumes get no discard; boot order, serial, pciAddress, multiqueue', () => {
    const d = one(
      { name: 'v', disk: { bus: 'virtio', pciAddress: '0000:81:01.0' }, bootOrder: 1, serial: 'S1' },
      { name: 'v', persistentVolumeClaim: { claimName: 'c' } },
      { volumesDiscardIgnore: ['v'] },
    );
    expect(d).toMatchObject({ bootOrder: 1, serial: 'S1', address: { type: 'pci', bus: '0x81', slot: '0x01' } });
    expect(d?.driver.discard).toBeUndefined();
  });
  it('a disk that names no volume is an error, a cdrom is an empty tray', () => {
    expect(() => one({ name: 'x', disk: { bus: 'virtio' } }, undefined)).toThrow('spec.domain.devices.disks[0].name');
    expect(one({ name: 'x', cdrom: { bus: 'sata' } }, undefined)).toMatchObject({
      type: 'block',
      device: 'cdrom',
      driver: { type: 'raw', discard: 'unmap' },
    });
  });
  it('hot-plugged volumes: only once mounted, under the hot-plug dir', () => {
    const hp = {
      hotplugVolumes: { h: { name: 'h', target: '', phase: 'Ready' } },
      permanentVolumes: { other: { name: 'other', target: '', phase: '' } },
    };
    expect(
      one({ name: 'h', disk: { bus: 'scsi' } }, { name: 'h', persistentVolumeClaim: { claimName: 'c' } }, hp)?.source
        .file,
    ).toBe('/var/run/kubevirt/hotplug-disks/h.img');
    const pending = { ...hp, hotplugVolumes: { h: { name: 'h', target: '', phase: 'Pending' } } };
    expect(
      one({ name: 'h', disk: { bus: 'scsi' } }, { name: 'h', persistentVolumeClaim: { claimName: 'c' } }, pending),
    ).toBeUndefined();
  });
  it('a CD-ROM on a PVC unmaps unless preallocated; overlays and empty disks always unmap', () => {
    const pvc = { name: 'c', persistentVolumeClaim: { claimName: 'iso' } };
    expect(one({ name: 'c', cdrom: { bus: 'sata' } }, pvc)?.driver.discard).toBe('unmap');
    expect(one({ name: 'c', cdrom: { bus: 'sata' } }, pvc, { volumesDiscardIgnore: ['c'] })?.driver.discard).toBe(
      undefined,
    );
    const dv = one({ name: 'c', cdrom: { bus: 'sata' } }, { name: 'c', dataVolume: { name: 'd' } });
    expect(dv?.driver.discard).toBe('unmap');
    const empty = one(
      { name: 'e', disk: { bus: 'virtio' } },
      { name: 'e', emptyDisk: { capacity: '1Gi' } },
      { volumesDiscardIgnore: ['e'] },
    );
    expect(empty?.driver.discard).toBe('unmap');
    const eph = one(
      { name: 'e', cdrom: { bus: 'sata' } },
      { name: 'e', ephemeral: { persistentVolumeClaim: { claimName: 'c' } } },
    );
    expect(eph?.driver).toMatchObject({ type: 'qcow2', discard: 'unmap' });
  });
  it('a downwardMetrics disk keeps error_policy stop (or the one asked for) and its IOThread', () => {
    const d = one({ name: 'm', disk: { bus: 'virtio' }, cache: 'none' }, { name: 'm', downwardMetrics: {} });
    expect(d?.driver).toEqual({ name: 'qemu', type: 'raw', errorPolicy: 'stop', iothread: undefined });
    expect(d?.readonly).toBe(true);
    const v = vmi(
      {
        ioThreadsPolicy: 'shared',
        devices: { disks: [{ name: 'm', disk: { bus: 'virtio' }, errorPolicy: 'report' }] },
      },
      { volumes: [{ name: 'm', downwardMetrics: {} }] },
    );
    expect(run(disks, v).devices.disks[0]?.driver).toMatchObject({ errorPolicy: 'report', iothread: 1 });
  });
  it('a disk on a memoryDump volume is refused naming the volume', () => {
    expect(() => one({ name: 'd', disk: { bus: 'virtio' } }, { name: 'd', memoryDump: { claimName: 'dump' } })).toThrow(
      'spec.volumes[0].memoryDump',
    );
  });
});

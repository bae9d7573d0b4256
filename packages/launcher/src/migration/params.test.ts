import { describe, expect, it } from 'vitest';
import { parseVmiRequest } from '../vmi.js';
import type { MigrationOptions } from './options.js';
import { diskTargetsToCopy, migrationCall, migrationFlagNames, proxySocket } from './params.js';

const options: MigrationOptions = {
  bandwidthMiB: 0,
  progressTimeout: 150,
  completionTimeoutPerGiB: 800,
  maxDowntimeMs: 300,
  unsafeMigration: false,
  allowAutoConverge: false,
  allowPostCopy: false,
  allowWorkloadDisruption: false,
  stallDetectorRequested: false,
};

const vmi = parseVmiRequest(
  Buffer.from(
    JSON.stringify({
      apiVersion: 'kubevirt.io/v1',
      kind: 'VirtualMachineInstance',
      metadata: { name: 'demo', namespace: 'default', uid: 'u-1' },
      spec: {
        domain: {
          devices: {
            disks: [
              { name: 'rootdisk', disk: {} },
              { name: 'data', disk: {} },
              { name: 'cloudinitdisk', disk: {} },
              { name: 'iso', cdrom: {} },
            ],
          },
        },
        volumes: [
          { name: 'rootdisk', containerDisk: { image: 'x' } },
          { name: 'data', persistentVolumeClaim: { claimName: 'shared' } },
          { name: 'cloudinitdisk', cloudInitNoCloud: { userData: '#!/bin/sh' } },
          { name: 'iso', containerDisk: { image: 'y' } },
        ],
      },
    }),
  ),
);

const xml = `<domain type='qemu'><name>default_demo</name><devices>
  <disk type='file' device='disk'><source file='/a'/><target dev='vda' bus='virtio'/><alias name='ua-rootdisk'/></disk>
  <disk type='file' device='disk'><source file='/b'/><target dev='vdb' bus='virtio'/><alias name='ua-data'/></disk>
  <disk type='file' device='disk'><source file='/c'/><target dev='vdc' bus='virtio'/><readonly/><alias name='ua-cloudinitdisk'/></disk>
  <disk type='file' device='cdrom'><source file='/d'/><target dev='sda' bus='sata'/><alias name='ua-iso'/></disk>
</devices></domain>`;

describe('migration parameters (KubeVirt: live-migration-source.go)', () => {
  it('copies generated and local disks, never shared claims or CD-ROMs', () => {
    expect(diskTargetsToCopy(xml, vmi)).toEqual(['vda', 'vdc']);
    // A claim listed as a migrated volume is copied too.
    expect(diskTargetsToCopy(xml, vmi, ['data'])).toEqual(['vda', 'vdb', 'vdc']);
  });

  it('points libvirt and QEMU at the proxy sockets in the share directory', () => {
    const call = migrationCall(
      {
        shareDir: '/var/run/kubevirt',
        uid: 'u-1',
        domainName: 'default_demo',
        migratableXml: '<domain/>',
        copyDisks: ['vda'],
        sessionMode: false,
      },
      { ...options, bandwidthMiB: 8 },
    );
    expect(call.destUri).toBe('qemu+unix:///system?socket=/var/run/kubevirt/migrationproxy/u-1-source.sock');
    expect(call.params).toMatchObject({
      uri: 'unix:///var/run/kubevirt/migrationproxy/u-1-49152-source.sock',
      disksUri: 'unix:///var/run/kubevirt/migrationproxy/u-1-49153-source.sock',
      migrateDisks: ['vda'],
      bandwidthMiB: 8,
      destName: 'default_demo',
      destXml: '<domain/>',
      persistXml: '<domain/>',
    });
    const session = migrationCall(
      { shareDir: '/s', uid: 'u', domainName: 'd', migratableXml: '', copyDisks: [], sessionMode: true },
      options,
    );
    expect(session.destUri).toBe(`qemu+unix:///session?socket=${proxySocket('/s', 'u')}`);
    expect(session.params.disksUri).toBeUndefined();
    expect(session.params.bandwidthMiB).toBeUndefined();
  });

  it("sets KubeVirt's flags from the options", () => {
    expect(migrationFlagNames({ blockMigration: false, paused: false }, options)).toEqual([
      'LIVE',
      'PEER2PEER',
      'PERSIST_DEST',
    ]);
    expect(
      migrationFlagNames(
        { blockMigration: true, paused: true },
        { ...options, allowAutoConverge: true, allowPostCopy: true, parallelMigrationThreads: 2, compression: 'zstd' },
      ),
    ).toEqual([
      'LIVE',
      'PEER2PEER',
      'PERSIST_DEST',
      'NON_SHARED_INC',
      'AUTO_CONVERGE',
      'POSTCOPY',
      'PAUSED',
      'PARALLEL',
      'COMPRESSED',
    ]);
  });
});

import { describe, expect, it } from 'vitest';
import type { VirtualMachineInstance } from '@virt-launcher/converter';
import { downtimeFromPodLog, isBlockMigration, migratingVmi, migrationOptionsJson } from './migrate.js';

const vmi = (volumes: object[]) =>
  ({
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachineInstance',
    metadata: { name: 'demo', namespace: 'default', uid: 'u-1' },
    spec: { volumes },
  }) as unknown as VirtualMachineInstance;

describe('the migration runner’s pieces', () => {
  it('calls it a block migration when a volume is neither a shared claim nor a shared host disk', () => {
    expect(isBlockMigration(vmi([{ name: 'a', containerDisk: {} }]))).toBe(true);
    expect(isBlockMigration(vmi([{ name: 'a', persistentVolumeClaim: { claimName: 'x' } }]))).toBe(false);
    expect(isBlockMigration(vmi([{ name: 'a', hostDisk: { shared: true } }]))).toBe(false);
    expect(isBlockMigration(vmi([]))).toBe(false);
  });

  it("puts virt-controller's migration state on the VMI's status, leaving the VMI itself alone", () => {
    const v = vmi([{ name: 'a', cloudInitNoCloud: {} }]);
    const m = migratingVmi(v, 'mig-1') as unknown as { status: Record<string, unknown> };
    expect(m.status).toMatchObject({
      migrationState: { migrationUid: 'mig-1', targetPod: 'virt-launcher-demo-target' },
      migrationMethod: 'BlockMigration',
      migrationTransport: 'Unix',
    });
    expect((v as unknown as { status?: unknown }).status).toBeUndefined();
  });

  it("sends MigrationOptions with Go field names and KubeVirt's defaults", () => {
    const o = JSON.parse(
      migrationOptionsJson({ afterSeconds: 0, untilMigrated: false, completionTimeoutPerGiB: 800 }).toString(),
    );
    expect(o).toMatchObject({
      Bandwidth: '0',
      CompletionTimeoutPerGiB: 800,
      ProgressTimeout: 150,
      AllowPostCopy: false,
    });
    const slow = JSON.parse(
      migrationOptionsJson({
        afterSeconds: 0,
        untilMigrated: true,
        bandwidth: '1Mi',
        completionTimeoutPerGiB: 1,
      }).toString(),
    );
    expect(slow).toMatchObject({ Bandwidth: '1Mi', CompletionTimeoutPerGiB: 1 });
  });

  it("reads libvirt's downtime from the source launcher's log line", () => {
    const log = [
      '{"level":"info","msg":"Initiating live migration."}',
      'not json',
      '{"level":"info","msg":"Live migration succeeded.","downtimeMs":412}',
    ].join('\n');
    expect(downtimeFromPodLog(log)).toBe(412);
    expect(downtimeFromPodLog('{"msg":"Live migration succeeded."}')).toBeUndefined();
    expect(downtimeFromPodLog('')).toBeUndefined();
  });
});

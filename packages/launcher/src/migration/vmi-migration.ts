// The parts of the VMI's status a migration reads (KubeVirt's migrationState, migrationMethod, migratedVolumes)
// and the data size the completion timeout scales with.
import { parseQuantity, toBytes } from '@virt-launcher/shared';
import { InvalidRequestError } from '../errors.js';
import type { VmiView } from '../vmi.js';

interface VmiJson {
  spec?: {
    domain?: { memory?: { guest?: string }; resources?: { requests?: { memory?: string } } };
  };
  status?: {
    migrationMethod?: string;
    migratedVolumes?: Array<{ volumeName?: string }>;
    migrationState?: {
      migrationUid?: string;
      targetPod?: string;
      sourceState?: { migrationUid?: string };
    };
  };
}

export interface VmiMigrationView {
  /** The migration's UID (the source state's when present, as KubeVirt's MigrationUID). */
  migrationUid: string;
  hasMigrationState: boolean;
  blockMigration: boolean;
  migratedVolumes: string[];
  memoryBytes: number;
  targetPod: string;
}

export function readVmiMigration(vmi: VmiView): VmiMigrationView {
  const doc = JSON.parse(vmi.raw.toString('utf8')) as VmiJson;
  const state = doc.status?.migrationState;
  const memoryText = doc.spec?.domain?.memory?.guest ?? doc.spec?.domain?.resources?.requests?.memory ?? '0';
  const memory = parseQuantity(memoryText);
  if (!memory)
    throw new InvalidRequestError(`memory ${JSON.stringify(memoryText)} is not a quantity`, 'spec.domain.memory.guest');
  return {
    migrationUid: state?.sourceState?.migrationUid ?? state?.migrationUid ?? '',
    hasMigrationState: state !== undefined && state !== null,
    blockMigration: doc.status?.migrationMethod === 'BlockMigration',
    migratedVolumes: (doc.status?.migratedVolumes ?? []).map((v) => v.volumeName ?? '').filter(Boolean),
    memoryBytes: Number(toBytes(memory)),
    targetPod: state?.targetPod ?? '',
  };
}

// The launcher's in-memory KubeVirt metadata (KubeVirt keeps it in a cache, not in the XML): VMI UID and
// the grace-period bookkeeping. Every change notifies listeners, which turns into a MODIFIED domain event.

export interface GracePeriodMetadata {
  DeletionGracePeriodSeconds: number;
  DeletionTimestamp?: string;
  MarkedForGracefulShutdown?: boolean;
}

/** KubeVirt's api.MigrationMetadata: the record of the one migration this launcher runs or receives. */
export interface MigrationMetadata {
  UID?: string;
  StartTimestamp?: string;
  EndTimestamp?: string;
  Failed?: boolean;
  FailureReason?: string;
  /** '' | 'Aborting' | 'Succeeded' | 'Failed' (v1.MigrationAbortStatus). */
  AbortStatus?: string;
  /** 'PreCopy' | 'PostCopy' | 'Paused' (v1.MigrationMode). */
  Mode?: string;
}

export interface KubeVirtMetadata {
  UID: string;
  GracePeriod?: GracePeriodMetadata;
  Migration?: MigrationMetadata;
  /** api.AccessCredentialMetadata: the last access-credential propagation's result (agent/access-credentials.ts). */
  AccessCredential?: { Succeeded: boolean; Message: string };
}

export class MetadataCache {
  private value: KubeVirtMetadata = { UID: '' };
  private listeners: Array<() => void> = [];

  get(): KubeVirtMetadata {
    return structuredClone(this.value);
  }

  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  update(change: (m: KubeVirtMetadata) => void): void {
    const before = JSON.stringify(this.value);
    change(this.value);
    if (JSON.stringify(this.value) !== before) this.listeners.forEach((l) => l());
  }
}

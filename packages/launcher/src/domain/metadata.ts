// The launcher's in-memory KubeVirt metadata (KubeVirt keeps it in a cache, not in the XML): VMI UID and
// the grace-period bookkeeping. Every change notifies listeners, which turns into a MODIFIED domain event.

export interface GracePeriodMetadata {
  DeletionGracePeriodSeconds: number;
  DeletionTimestamp?: string;
  MarkedForGracefulShutdown?: boolean;
}

export interface KubeVirtMetadata {
  UID: string;
  GracePeriod?: GracePeriodMetadata;
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

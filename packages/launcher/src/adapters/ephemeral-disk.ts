// The one place that knows @virt-launcher/ephemeral-disk's face (loaded when first needed).
import type * as EphemeralDisk from '@virt-launcher/ephemeral-disk';

export type EphemeralDiskFace = typeof EphemeralDisk;

/** What the launcher reads of `inspectImage`: the face's own result type. */
export type ImageFacts = Awaited<ReturnType<EphemeralDiskFace['inspectImage']>>;

export async function loadEphemeralDisk(): Promise<EphemeralDiskFace> {
  // Loaded at the first preStartHook; the literal specifier keeps the face type-checked.
  const face: EphemeralDiskFace = await import('@virt-launcher/ephemeral-disk');
  return face;
}

export type { ConfigVolumeKind, Metric } from '@virt-launcher/ephemeral-disk';

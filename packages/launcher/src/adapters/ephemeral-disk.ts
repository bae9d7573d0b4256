// The one place that knows @virt-launcher/ephemeral-disk's face (loaded at run time, see adapters/libvirt.ts).

export interface ImageFacts {
  format: string;
  backingFilename?: string;
  virtualSize: bigint | number;
  actualSize?: bigint | number;
}

export interface EphemeralDiskFace {
  createWriteLayer(req: {
    ephemeralDir: string;
    volume: string;
    backingFile: string;
    backingFormat?: string;
  }): Promise<{ path: string; created: boolean }>;
  createEmptyDisk(req: { emptyDiskDir: string; volume: string; capacity: string }): Promise<{ path: string }>;
  createHostDisk(req: { path: string; capacity: string }): Promise<{ path: string }>;
  createCloudInitIso(req: Record<string, unknown>): Promise<{ path: string }>;
  createConfigIso(req: { sourceDir: string; targetPath: string; label: string }): Promise<{ path: string }>;
  inspectImage(path: string, ...rest: unknown[]): Promise<ImageFacts>;
}

export async function loadEphemeralDisk(): Promise<EphemeralDiskFace> {
  const face = (await import(
    /* resolved at run time */ faceName('@virt-launcher/ephemeral-disk')
  )) as unknown as Partial<EphemeralDiskFace>;
  if (typeof face.createWriteLayer !== 'function') {
    throw new Error('@virt-launcher/ephemeral-disk has no createWriteLayer() yet (its face has not landed)');
  }
  return face as EphemeralDiskFace;
}

/** A non-literal specifier: tsc must not require the package's dist/ to type-check the launcher. */
function faceName(name: string): string {
  return name;
}

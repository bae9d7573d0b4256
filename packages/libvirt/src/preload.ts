// `@virt-launcher/libvirt/preload`, the package's second face, kept apart from the binding on purpose: importing
// the main face loads virt_native.node, whose dynamic loading maps libvirt and its ~55 dependencies on the
// calling (main) thread, 30-90 ms on two busy cores. `preloadLibraries` has a libuv worker thread open them first
// (native/preload.c, linked against no libvirt library), so a program can load the binding after it resolves and
// spend the wait on other work; the binding then finds every library mapped. Nothing else changes: the
// libraries stay loaded for the process's life, as they would once the binding is loaded.
import { createRequire } from 'node:module';

interface PreloadAddon {
  preload(names: string[]): Promise<void>;
}

/** What the binding links: libvirt-qemu.so.0 brings libvirt.so.0 and the rest with it. */
export const LIBVIRT_CLIENT_LIBRARIES: readonly string[] = ['libvirt.so.0', 'libvirt-qemu.so.0'];

/** A library the dynamic loader could not open; `reason` is its own message (dlerror). */
export class PreloadError extends Error {
  constructor(
    readonly libraries: readonly string[],
    readonly reason: string,
  ) {
    super(`preloading ${libraries.join(', ')}: ${reason}`);
    this.name = 'PreloadError';
  }
}

let addon: PreloadAddon | undefined;

/** Opens the libraries on a worker thread; resolves once all are mapped. Up to 8 names. */
export async function preloadLibraries(libraries: readonly string[] = LIBVIRT_CLIENT_LIBRARIES): Promise<void> {
  // Same relative path from src/ (tests) and dist/ (consumers), as the binding's own loader (native.ts).
  addon ??= createRequire(import.meta.url)('../build/Release/virt_preload.node') as PreloadAddon;
  try {
    await addon.preload([...libraries]);
  } catch (err) {
    if (err instanceof TypeError) throw err;
    throw new PreloadError(libraries, err instanceof Error ? err.message : String(err));
  }
}

// A disk's <blockio>: either the sizes the VMI gives (blockSize.custom) or, with blockSize.matchVolume, the
// sizes of the volume itself. The converter never touches the volume, so the launcher measures it (a block
// device's logical/physical sector sizes and discard granularity, or the block size of the filesystem a file
// lives on) and passes the result as context.volumeBlockSizes. A custom size wins over matchVolume, as in
// KubeVirt; a matching disk whose volume was not measured is refused rather than given a guessed size.
import type { Resolved } from '../context/resolve.js';
import type { DomainDisk } from '../domain/types.js';
import { ConversionError, quote } from '../errors.js';
import type { Disk } from '../vmi/types.js';

/** s390x's virtio-blk takes no block larger than this, so KubeVirt refuses a larger custom size there. */
const MAX_S390X_BLOCK_SIZE = 4096;

/** The <blockio> a disk gets, or undefined when it asks for none (or switched matchVolume off). */
export function diskBlockIo(disk: Disk, field: string, ctx: Resolved): DomainDisk['blockio'] {
  const { custom, matchVolume } = disk.blockSize ?? {};
  if (custom) {
    if (ctx.arch.arch === 's390x' && Math.max(custom.logical, custom.physical) > MAX_S390X_BLOCK_SIZE) {
      throw new ConversionError(
        `${field}.blockSize.custom`,
        { logical: custom.logical, physical: custom.physical },
        `exceeds the maximum supported block size of ${MAX_S390X_BLOCK_SIZE} on s390x`,
      );
    }
    return { logical: custom.logical, physical: custom.physical, discardGranularity: custom.discardGranularity };
  }
  if (!matchVolume || matchVolume.enabled === false) return undefined;
  const matchField = `${field}.blockSize.matchVolume`;
  const sizes = ctx.raw.volumeBlockSizes[disk.name];
  if (!sizes) {
    throw new ConversionError(
      matchField,
      disk.name,
      `no measured block size for volume ${quote(disk.name)} in context.volumeBlockSizes: the launcher could not ` +
        'measure it (it measures PVC, DataVolume and hostDisk volumes); set blockSize.custom instead',
    );
  }
  if (sizes.logical === 0 || sizes.physical === 0) {
    throw new ConversionError(
      matchField,
      disk.name,
      `context.volumeBlockSizes[${quote(disk.name)}] has a zero size (logical ${sizes.logical}, ` +
        `physical ${sizes.physical})`,
    );
  }
  // KubeVirt always writes the measured discard granularity, 0 included (libvirt 9.0 then leaves it out).
  return { logical: sizes.logical, physical: sizes.physical, discardGranularity: sizes.discardGranularity };
}

// Typed errors of the package. `badInput` separates a caller's mistake (the CLI exits 2) from a failure of the
// machine or a tool (exit 1); every message is one line and names the thing at fault.

export abstract class DiskError extends Error {
  abstract readonly badInput: boolean;
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

export class InvalidVolumeNameError extends DiskError {
  readonly badInput = true;
  constructor(
    readonly volume: string,
    readonly reason: string,
  ) {
    super(`invalid volume name ${JSON.stringify(volume)}: ${reason}`);
  }
}

/** A namespace or VMI name that would not stay inside its directory. */
export class InvalidObjectNameError extends DiskError {
  readonly badInput = true;
  constructor(
    readonly field: 'namespace' | 'name',
    readonly value: string,
    readonly reason: string,
  ) {
    super(`invalid ${field} ${JSON.stringify(value)}: ${reason}`);
  }
}

export class InvalidQuantityError extends DiskError {
  readonly badInput = true;
  constructor(
    readonly value: string,
    readonly reason: string,
  ) {
    super(`invalid quantity ${JSON.stringify(value)}: ${reason}`);
  }
}

export class SizeTooSmallError extends DiskError {
  readonly badInput = true;
  constructor(
    readonly target: string,
    readonly bytes: bigint,
  ) {
    super(`the size for ${target} is too low: ${bytes} bytes is less than 1 MiB after alignment`);
  }
}

export class BackingFileNotFoundError extends DiskError {
  readonly badInput = true;
  constructor(
    readonly path: string,
    override readonly cause?: unknown,
  ) {
    super(`backing file ${path} not found`);
  }
}

/** A backing image that is neither raw nor a qcow2 without its own backing file. */
export class UnsupportedImageError extends DiskError {
  readonly badInput = true;
  constructor(
    readonly path: string,
    readonly format: string,
    readonly backingFile: string | undefined,
  ) {
    super(
      backingFile === undefined
        ? `unsupported image format ${JSON.stringify(format)} in ${path}: only raw and qcow2 are accepted`
        : `image ${path} (${format}) has a backing file ${JSON.stringify(backingFile)}: expected none`,
    );
  }
}

export class BackingFormatMismatchError extends DiskError {
  readonly badInput = true;
  constructor(
    readonly path: string,
    readonly requested: string,
    readonly detected: string,
  ) {
    super(`backing format ${requested} was requested for ${path} but the image is ${detected}`);
  }
}

/** qemu-img (or another tool) failed, ran out of its CPU/memory limits, or printed something unparsable. */
export class ToolError extends DiskError {
  readonly badInput = false;
  constructor(
    readonly tool: string,
    readonly args: readonly string[],
    readonly output: string,
    readonly exitCode: number | null,
    readonly signal: string | null,
  ) {
    const how = signal !== null ? `killed by ${signal}` : `exit code ${exitCode}`;
    const detail = output.trim().split('\n').join(' | ');
    super(`${tool} failed (${how})${detail ? `: ${detail}` : ''}`);
  }
}

export class InsufficientSpaceError extends DiskError {
  readonly badInput = false;
  constructor(
    readonly path: string,
    readonly neededBytes: bigint,
    readonly availableBytes: bigint,
  ) {
    super(`unable to create ${path}, not enough space: needed ${neededBytes} bytes, available ${availableBytes} bytes`);
  }
}

export class MissingCloudInitDataError extends DiskError {
  readonly badInput = true;
  constructor(readonly reason: string) {
    super(reason);
  }
}

export class InvalidIsoLabelError extends DiskError {
  readonly badInput = true;
  constructor(
    readonly label: string,
    readonly reason: string,
  ) {
    super(`invalid ISO volume label ${JSON.stringify(label)}: ${reason}`);
  }
}

export class InvalidRequestError extends DiskError {
  readonly badInput = true;
  constructor(
    readonly field: string,
    readonly reason: string,
  ) {
    super(`invalid ${field}: ${reason}`);
  }
}

export class SysprepUnattendMissingError extends DiskError {
  readonly badInput = true;
  constructor(readonly sourceDir: string) {
    super(`sysprep drive ${sourceDir} should contain autounattend.xml or unattend.xml but neither was found`);
  }
}

/** Where an image points outside itself: QEMU would open that file as part of the disk. */
export type ImageReferenceKind = 'backing file' | 'external data file';

/**
 * An image the pod did not create refers to another file (a backing file, json: names included, or an
 * external data file). Such an image would let whoever built it make QEMU open any file of the pod as the guest's disk.
 */
export class ExternalReferenceError extends UnsupportedImageError {
  constructor(
    path: string,
    format: string,
    readonly kind: ImageReferenceKind,
    readonly reference: string,
    readonly volume: string | undefined,
  ) {
    super(path, format, kind === 'backing file' ? reference : undefined);
    const subject = volume === undefined ? '' : `volume ${volume}: `;
    this.message = `${subject}image ${path} (${format}) has ${kind === 'external data file' ? 'an' : 'a'} ${kind} ${JSON.stringify(reference)}: images must be self-contained`;
  }
}

/**
 * A path under a directory this package writes to is a symlink, or not the kind of file expected there. Not
 * bad input (exit 1): the request was fine, the files on the machine are not what they must be.
 */
export class UnsafePathError extends DiskError {
  readonly badInput = false;
  constructor(
    readonly path: string,
    readonly found: 'symlink' | 'not a directory' | 'not a regular file',
  ) {
    super(
      found === 'symlink'
        ? `refusing ${path}: it is a symbolic link (links are never followed under the disk directories)`
        : `refusing ${path}: it is ${found}`,
    );
  }
}

/** An existing write layer that is not the one this package would have made over the requested backing. */
export class ForeignLayerError extends DiskError {
  readonly badInput = true;
  constructor(
    readonly path: string,
    readonly volume: string,
    readonly expectedBacking: string,
    readonly foundBacking: string | undefined,
  ) {
    super(
      `volume ${volume}: existing write layer ${path} is backed by ${foundBacking === undefined ? 'nothing' : JSON.stringify(foundBacking)}, not ${JSON.stringify(expectedBacking)}; refusing to use it`,
    );
  }
}

/**
 * An entry of a config volume (configMap, secret, downwardAPI, ...) is a link that leaves the volume's directory,
 * or something an ISO cannot hold. Kubernetes only makes links inside the volume (`key -> ..data/key`), so one
 * pointing elsewhere was planted: it is refused, not followed. Not bad input: the request was fine.
 */
export class UnsafeConfigEntryError extends DiskError {
  readonly badInput = false;
  constructor(
    readonly sourceDir: string,
    readonly entry: string,
    readonly reason: string,
  ) {
    super(`refusing entry ${JSON.stringify(entry)} of config volume ${sourceDir}: ${reason}`);
  }
}

/** The ISO tool exited 0 but left out (or added) paths: no partial ISO is ever published. */
export class IncompleteIsoError extends DiskError {
  readonly badInput = false;
  constructor(
    readonly path: string,
    readonly missing: readonly string[],
    readonly unexpected: readonly string[],
  ) {
    super(`ISO ${path} is not complete: missing ${JSON.stringify(missing)}, unexpected ${JSON.stringify(unexpected)}`);
  }
}

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

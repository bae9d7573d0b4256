// Typed errors of @virt-launcher/netsetup. `BadInputError` subclasses are the caller's mistakes (the CLI exits 2
// on them, and nothing was changed); `CommandError` and `ApplyError` are failures of the tools themselves.

export class NetsetupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** Input that can never work: reported before anything in the namespace is touched. */
export class BadInputError extends NetsetupError {}

export class NamespaceNotFoundError extends BadInputError {
  constructor(readonly netns: string) {
    super(`network namespace "${netns}" does not exist`);
  }
}

export class InterfaceNotFoundError extends BadInputError {
  constructor(
    readonly netns: string,
    readonly iface: string,
  ) {
    super(`interface "${iface}" not found in network namespace "${netns}"`);
  }
}

export class InvalidPortError extends BadInputError {
  constructor(
    readonly spec: string,
    readonly reason: string,
  ) {
    super(`invalid port "${spec}": ${reason}`);
  }
}

export class InvalidCidrError extends BadInputError {
  constructor(
    readonly cidr: string,
    readonly reason: string,
  ) {
    super(`invalid VM network CIDR "${cidr}": ${reason}`);
  }
}

/** The request asks for something the pod interface cannot give (e.g. IPv6 without a pod IPv6 address). */
export class InvalidRequestError extends BadInputError {
  constructor(readonly reason: string) {
    super(reason);
  }
}

/** Our nftables table name is already used by someone else in the pod (e.g. iptables-nft): we never touch it. */
export class TableConflictError extends BadInputError {
  constructor(
    readonly family: string,
    readonly table: string,
  ) {
    super(`nftables table "${family} ${table}" exists and is not owned by virt-netsetup; refusing to replace it`);
  }
}

/** An external command (ip, nft, sysctl) failed. */
export class CommandError extends NetsetupError {
  constructor(
    readonly command: string,
    readonly exitCode: number | undefined,
    readonly stderr: string,
  ) {
    super(`${command} failed (exit ${exitCode ?? 'none'}): ${stderr.trim().split('\n')[0] ?? ''}`);
  }
}

/** A step of applyPlan failed; what this call had created was rolled back (see `rolledBack`). */
export class ApplyError extends NetsetupError {
  constructor(
    readonly step: string,
    override readonly cause: unknown,
    readonly rolledBack: string[],
    readonly rollbackErrors: string[],
  ) {
    super(
      `apply step "${step}" failed: ${cause instanceof Error ? cause.message : String(cause)}` +
        (rolledBack.length > 0 ? `; rolled back: ${rolledBack.join(', ')}` : '') +
        (rollbackErrors.length > 0 ? `; rollback errors: ${rollbackErrors.join('; ')}` : ''),
    );
  }
}

/** Another run held the namespace's lock for too long, or the lock could not be taken at all. */
export class NetnsLockError extends NetsetupError {
  constructor(
    readonly netns: string,
    readonly lockPath: string,
    readonly reason: string,
  ) {
    super(`cannot lock network namespace "${netns}" (${lockPath}): ${reason}`);
  }
}

// How much of what the guest agent says the launcher keeps (docs/cmd-contract.md, "Agent answer bounds"). The guest
// is not trusted: without bounds a 3 MiB string or 100,000 filesystems pass into every GetGuestInfo, GetDomain
// and GetFilesystems answer, past the 4 MiB a stock virt-handler's gRPC client accepts, and into the launcher's
// memory for as long as the guest runs. Strings are cut, lists end where a count or a byte budget is reached, so
// every answer stays under 1 MiB whatever the agent sends.

export const AGENT_BOUNDS = {
  /**
   * A raw agent reply (guest-get-fsinfo, guest-info, guest-fsfreeze-status) longer than this is not parsed: the
   * most libvirt's RPC carries in one string (REMOTE_STRING_MAX), so only a daemon of another build sends more.
   */
  replyChars: 4 * 1024 * 1024,
  /** Any string the agent reports (names, versions, mount points, OS fields, addresses). */
  stringChars: 1024,
  /** Short identifiers: disk serials and bus types, supported command names, the freeze status. */
  shortStringChars: 256,
  filesystems: 1000,
  filesystemsBytes: 768 * 1024,
  disksPerFilesystem: 8,
  users: 256,
  usersBytes: 256 * 1024,
  interfaces: 256,
  interfacesBytes: 256 * 1024,
  addressesPerInterface: 64,
  supportedCommands: 256,
  supportedCommandsBytes: 64 * 1024,
} as const;

/**
 * A copy that refers to nothing else: V8 makes a slice (and may make a parsed JSON value) a view into the string
 * it came from, so a 1 KiB field cut from a 3 MiB string would keep the 3 MiB alive in the store.
 */
const detached = (s: string): string => (s.length < 16 ? s : s.split('').join(''));

/** `value` if it is a string, cut to `max` characters (never in the middle of a UTF-16 pair); else undefined. */
export function boundedString(value: unknown, max: number = AGENT_BOUNDS.stringChars): string | undefined {
  if (typeof value !== 'string') return undefined;
  if (value.length <= max) return detached(value);
  const cut = value.slice(0, max);
  const last = cut.charCodeAt(cut.length - 1);
  return detached(last >= 0xd800 && last <= 0xdbff ? cut.slice(0, -1) : cut);
}

/** The first items that fit both `maxItems` and `maxBytes` (each item counted as its JSON in UTF-8). */
export function boundedList<T>(items: readonly T[], maxItems: number, maxBytes: number): T[] {
  const kept: T[] = [];
  let bytes = 0;
  for (const item of items) {
    if (kept.length >= maxItems) break;
    bytes += Buffer.byteLength(JSON.stringify(item) ?? '') + 1;
    if (bytes > maxBytes) break;
    kept.push(item);
  }
  return kept;
}

/** A Go int (int64) that JSON carries exactly: a safe integer, >= 0 when `unsigned`. */
export function isGoInt(value: unknown, unsigned = false): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && (!unsigned || value >= 0);
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

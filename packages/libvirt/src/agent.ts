// Guest-agent calls of a domain (native/agent.cc) and the shaping of virDomainGetGuestInfo's flat typed
// parameters ("fs.0.mountpoint", "if.1.addr.0.addr", ...) into nested objects.
import { ErrorCode, ErrorDomain } from './error-codes.js';
import { LibvirtError, call } from './errors.js';
import type { NativeDomain } from './native.js';

/** virDomainGuestInfoTypes: what getGuestInfo asks the agent for (0 = everything libvirt supports). */
export const GuestInfoTypes = {
  USERS: 1 << 0,
  OS: 1 << 1,
  TIMEZONE: 1 << 2,
  HOSTNAME: 1 << 3,
  FILESYSTEM: 1 << 4,
  DISKS: 1 << 5,
  INTERFACES: 1 << 6,
} as const;

/** virDomainAuthorizedSSHKeysSetFlags. */
export const AuthorizedSSHKeysFlags = { APPEND: 1 << 0, REMOVE: 1 << 1 } as const;

/** virDomainSetTimeFlags: SYNC makes the guest re-read its RTC instead of taking the time given. */
export const SetTimeFlags = { SYNC: 1 << 0 } as const;

export interface GuestUser {
  name: string;
  domain?: string;
  /** Login time in milliseconds since the epoch. */
  loginTime: number;
}

export interface GuestOSInfo {
  id?: string;
  name?: string;
  prettyName?: string;
  version?: string;
  versionId?: string;
  kernelRelease?: string;
  kernelVersion?: string;
  machine?: string;
  variant?: string;
  variantId?: string;
}

export interface GuestFilesystemDisk {
  alias?: string;
  serial?: string;
  device?: string;
}

export interface GuestFilesystem {
  mountpoint: string;
  name: string;
  fstype: string;
  totalBytes?: number;
  usedBytes?: number;
  disks: GuestFilesystemDisk[];
}

export interface GuestIPAddress {
  type: string;
  addr: string;
  prefix: number;
}

export interface GuestInterface {
  name: string;
  hwaddr?: string;
  addrs: GuestIPAddress[];
}

/** What virDomainGetGuestInfo returned; a part is absent when it was not asked for (or not reported). */
export interface GuestInfo {
  users?: GuestUser[];
  os?: GuestOSInfo;
  timezone?: { name?: string; offset?: number };
  hostname?: string;
  filesystems?: GuestFilesystem[];
  interfaces?: GuestInterface[];
  /** The flat parameters as libvirt named them, for anything not shaped above (disks, newer fields). */
  raw: Record<string, number | string | boolean>;
}

type Params = Record<string, number | string | boolean>;

const str = (p: Params, key: string): string | undefined =>
  typeof p[key] === 'string' ? (p[key] as string) : undefined;
const num = (p: Params, key: string): number | undefined =>
  typeof p[key] === 'number' ? (p[key] as number) : undefined;

/** `prefix.count` items, each built from its own `prefix.<i>.` keys. */
function list<T>(p: Params, prefix: string, item: (at: string) => T): T[] | undefined {
  const count = num(p, `${prefix}.count`);
  if (count === undefined) return undefined;
  return Array.from({ length: count }, (_, i) => item(`${prefix}.${i}`));
}

function drop<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

/** Nested GuestInfo from the flat typed parameters (key names: libvirt's virDomainGetGuestInfo docs). */
export function shapeGuestInfo(p: Params): GuestInfo {
  const osKeys = Object.keys(p).some((k) => k.startsWith('os.'));
  const info: GuestInfo = {
    users: list(p, 'user', (at) =>
      drop({
        name: str(p, `${at}.name`) ?? '',
        domain: str(p, `${at}.domain`),
        loginTime: num(p, `${at}.login-time`) ?? 0,
      }),
    ),
    os: osKeys
      ? drop({
          id: str(p, 'os.id'),
          name: str(p, 'os.name'),
          prettyName: str(p, 'os.pretty-name'),
          version: str(p, 'os.version'),
          versionId: str(p, 'os.version-id'),
          kernelRelease: str(p, 'os.kernel-release'),
          kernelVersion: str(p, 'os.kernel-version'),
          machine: str(p, 'os.machine'),
          variant: str(p, 'os.variant'),
          variantId: str(p, 'os.variant-id'),
        })
      : undefined,
    timezone:
      'timezone.name' in p || 'timezone.offset' in p
        ? drop({ name: str(p, 'timezone.name'), offset: num(p, 'timezone.offset') })
        : undefined,
    hostname: str(p, 'hostname'),
    filesystems: list(p, 'fs', (at) =>
      drop({
        mountpoint: str(p, `${at}.mountpoint`) ?? '',
        name: str(p, `${at}.name`) ?? '',
        fstype: str(p, `${at}.fstype`) ?? '',
        totalBytes: num(p, `${at}.total-bytes`),
        usedBytes: num(p, `${at}.used-bytes`),
        disks:
          list(p, `${at}.disk`, (d) =>
            drop({ alias: str(p, `${d}.alias`), serial: str(p, `${d}.serial`), device: str(p, `${d}.device`) }),
          ) ?? [],
      }),
    ),
    interfaces: list(p, 'if', (at) =>
      drop({
        name: str(p, `${at}.name`) ?? '',
        hwaddr: str(p, `${at}.hwaddr`),
        addrs:
          list(p, `${at}.addr`, (a) => ({
            type: str(p, `${a}.type`) ?? '',
            addr: str(p, `${a}.addr`) ?? '',
            prefix: num(p, `${a}.prefix`) ?? 0,
          })) ?? [],
      }),
    ),
    raw: p,
  };
  return drop(info);
}

function invalid(message: string): Promise<never> {
  return Promise.reject(new LibvirtError(message, ErrorCode.INVALID_ARG, ErrorDomain.NONE));
}

export async function getGuestInfo(native: NativeDomain, types: number): Promise<GuestInfo> {
  return shapeGuestInfo(await call(native.getGuestInfo(types, 0)));
}

export function fsFreeze(native: NativeDomain, mountpoints: readonly string[] = []): Promise<number> {
  return call(native.fsFreeze([...mountpoints], 0));
}

export function fsThaw(native: NativeDomain, mountpoints: readonly string[] = []): Promise<number> {
  return call(native.fsThaw([...mountpoints], 0));
}

/** Sets the guest clock to `time` (default now), or with `sync` makes the guest re-read its RTC. */
export function setTime(native: NativeDomain, opts: { time?: Date; sync?: boolean } = {}): Promise<void> {
  const ms = (opts.time ?? new Date()).getTime();
  if (!Number.isFinite(ms)) return invalid(`setTime: time ${String(opts.time)} is not a valid date`);
  const seconds = Math.floor(ms / 1000);
  const nseconds = (ms - seconds * 1000) * 1_000_000;
  return call(native.setTime(seconds, nseconds, opts.sync ? SetTimeFlags.SYNC : 0));
}

export function authorizedSSHKeysGet(native: NativeDomain, user: string): Promise<string[]> {
  if (!user) return invalid('authorizedSSHKeysGet: user must not be empty');
  return call(native.authorizedSSHKeysGet(user, 0));
}

/** Replaces the user's authorized_keys (`append`: adds; `remove`: deletes the keys given). */
export function authorizedSSHKeysSet(
  native: NativeDomain,
  user: string,
  keys: readonly string[],
  opts: { append?: boolean; remove?: boolean } = {},
): Promise<void> {
  if (!user) return invalid('authorizedSSHKeysSet: user must not be empty');
  const bad = keys.find((k) => k.includes('\n'));
  if (bad !== undefined) return invalid(`authorizedSSHKeysSet: key ${JSON.stringify(bad)} spans several lines`);
  const flags = (opts.append ? AuthorizedSSHKeysFlags.APPEND : 0) | (opts.remove ? AuthorizedSSHKeysFlags.REMOVE : 0);
  return call(native.authorizedSSHKeysSet(user, [...keys], flags));
}

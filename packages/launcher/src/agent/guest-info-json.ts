// GetGuestInfo, GetUsers and GetFilesystems answers: KubeVirt's v1 types as Go's encoding/json writes them
// (struct field order, omitempty drops empty strings/slices/zero numbers but never a struct, nil slice = null).
// With nothing reported they are exactly the empty answers of cmd-server/no-agent.ts.
import type { AgentFacts, AgentFilesystem, AgentUser } from './store.js';

/** KubeVirt's GetGuestInfo caps the users and filesystems it lists; GetUsers/GetFilesystems list them all. */
export const GUEST_INFO_LIST_LIMIT = 10;

type Json = Record<string, unknown>;

/** Drops what Go's omitempty would: '', 0, false, undefined and empty arrays (never objects). */
function omitEmpty(o: Json): Json {
  return Object.fromEntries(
    Object.entries(o).filter(
      ([, v]) => v !== undefined && v !== '' && v !== 0 && v !== false && !(Array.isArray(v) && v.length === 0),
    ),
  );
}

function userJson(u: AgentUser): Json {
  return { userName: u.Name, ...omitEmpty({ domain: u.Domain, loginTime: u.LoginTime }) };
}

function filesystemJson(fs: AgentFilesystem): Json {
  const disk = fs.Disk.map((d) => ({ ...omitEmpty({ serial: d.Serial }), busType: d.BusType }));
  return {
    diskName: fs.Name,
    mountPoint: fs.Mountpoint,
    fileSystemType: fs.Type,
    usedBytes: fs.UsedBytes,
    totalBytes: fs.TotalBytes,
    ...omitEmpty({ disk }),
  };
}

/** v1.VirtualMachineInstanceGuestAgentInfo. */
export function guestInfoJson(facts: Readonly<AgentFacts>): string {
  const os = facts.osInfo ?? {};
  const filesystems = (facts.filesystems ?? []).slice(0, GUEST_INFO_LIST_LIMIT).map(filesystemJson);
  const tz = facts.timezone ?? { Zone: '', Offset: 0 };
  const info = {
    ...omitEmpty({
      guestAgentVersion: facts.agent?.Version,
      supportedCommands: facts.agent?.SupportedCommands.map((c) => ({
        name: c.name,
        ...omitEmpty({ enabled: c.enabled }),
      })),
      hostname: facts.hostname,
    }),
    os: omitEmpty({
      name: os.Name,
      kernelRelease: os.KernelRelease,
      version: os.Version,
      prettyName: os.PrettyName,
      versionId: os.VersionId,
      kernelVersion: os.KernelVersion,
      machine: os.Machine,
      id: os.Id,
    }),
    timezone: `${tz.Zone}, ${tz.Offset}`,
    ...omitEmpty({ userList: (facts.users ?? []).slice(0, GUEST_INFO_LIST_LIMIT).map(userJson) }),
    fsInfo: { disks: filesystems.length > 0 ? filesystems : null },
    ...omitEmpty({ fsFreezeStatus: facts.fsFreezeStatus }),
  };
  return JSON.stringify(info);
}

/** []v1.VirtualMachineInstanceGuestOSUser, never null. */
export function usersJson(facts: Readonly<AgentFacts>): string {
  return JSON.stringify((facts.users ?? []).map(userJson));
}

/** []v1.VirtualMachineInstanceFileSystem, never null. */
export function filesystemsJson(facts: Readonly<AgentFacts>): string {
  return JSON.stringify((facts.filesystems ?? []).map(filesystemJson));
}

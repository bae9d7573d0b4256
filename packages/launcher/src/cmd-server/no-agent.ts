// What KubeVirt's launcher answers for the guest-agent RPCs while no agent has reported anything: Go's
// encoding/json of its empty result types (docs/cmd-contract.md#guest-agent-rpcs).
//  - GetGuestInfo: VirtualMachineInstanceGuestAgentInfo with every field empty. omitempty drops the strings and
//    slices but never a struct (`os`, `fsInfo`); the timezone is formatted as "<zone>, <offset>" even when both
//    are empty; fsInfo.disks has no omitempty and a nil slice encodes as null.
//  - GetUsers / GetFilesystems: an empty (non-nil) list.
export const NO_AGENT = {
  guestInfo: JSON.stringify({ os: {}, timezone: ', 0', fsInfo: { disks: null } }),
  users: '[]',
  filesystems: '[]',
} as const;

// libvirt state/reason numbers -> KubeVirt's api.LifeCycle and api.StateChangeReason strings (docs/cmd-contract.md#payloads).

const lifecycle = ['NoState', 'Running', 'Blocked', 'Paused', 'ShuttingDown', 'Shutoff', 'Crashed', 'PMSuspended'];

const reasons: Record<number, string[]> = {
  3: [
    'Unknown',
    'User',
    'Migration',
    'Save',
    'Dump',
    'IOError',
    'Watchdog',
    'FromSnapshot',
    'ShuttingDown',
    'Snapshot',
    'Crashed',
    'StartingUp',
    'Postcopy',
    'PostcopyFailed',
  ],
  4: ['Unknown', 'User'],
  5: ['Unknown', 'Shutdown', 'Destroyed', 'Crashed', 'Migrated', 'Saved', 'Failed', 'FromSnapshot'],
  6: ['Unknown', 'Panicked'],
};

export const STATE = {
  noState: 0,
  running: 1,
  blocked: 2,
  paused: 3,
  shuttingDown: 4,
  shutoff: 5,
  crashed: 6,
  pmSuspended: 7,
} as const;

export function lifecycleName(state: number): string {
  return lifecycle[state] ?? 'NoState';
}

export function reasonName(state: number, reason: number): string {
  return reasons[state]?.[reason] ?? 'Unknown';
}

/** KubeVirt's IsDown (NoState, ShuttingDown, Shutoff, Crashed): such a domain is (re)started on sync. */
export function isDown(state: number): boolean {
  return state === STATE.noState || state === STATE.shuttingDown || state === STATE.shutoff || state === STATE.crashed;
}

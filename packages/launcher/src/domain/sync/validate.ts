// The Sync's first step: the checks a request must pass before anything is prepared, defined or started. KubeVirt
// leaves them to its API server and virt-handler; the launcher repeats them because it is the last line before
// libvirt, and a refused request (success:false naming the field) leaves the domain exactly as it was.
import { InvalidRequestError } from '../../errors.js';
import type { LauncherFlags } from '../../flags.js';
import { checkInterfaceStates } from '../../vmi.js';
import type { VmiView } from '../../vmi.js';

/** A Sync for a VMI other than the one the pod was started for (--name, --namespace, --uid). */
export class ForeignVmiError extends InvalidRequestError {
  constructor(
    message: string,
    field: string,
    readonly differences: string[],
  ) {
    super(message, field);
    this.name = 'ForeignVmiError';
  }
}

/**
 * A launcher serves one VMI: the one its pod was made for. A flag left empty (a launcher started without it, as
 * some tests do) is not compared.
 */
export function checkPodIdentity(vmi: Pick<VmiView, 'name' | 'namespace' | 'uid'>, flags: LauncherFlags): void {
  const pairs: Array<[field: string, got: string, flag: string, want: string]> = [
    ['metadata.namespace', vmi.namespace, '--namespace', flags.namespace],
    ['metadata.name', vmi.name, '--name', flags.name],
    ['metadata.uid', vmi.uid, '--uid', flags.uid],
  ];
  const differ = pairs.filter(([, got, , want]) => want !== '' && got !== want);
  if (differ.length === 0) return;
  const differences = differ.map(
    ([field, got, flag, want]) => `${field} ${JSON.stringify(got)} is not ${flag} ${JSON.stringify(want)}`,
  );
  throw new ForeignVmiError(
    `VMI ${vmi.namespace}/${vmi.name} is not this pod's: ${differences.join(', ')}; nothing was defined or started`,
    differ[0]![0],
    differences,
  );
}

/** Every check of a Sync request, in order: whose VMI it is, then what it asks for. */
export function validateSyncRequest(vmi: VmiView, flags: LauncherFlags): void {
  checkPodIdentity(vmi, flags);
  checkInterfaceStates(vmi);
}

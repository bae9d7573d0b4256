// SyncVMI as a pipeline of named steps: validate -> gather context -> convert -> look up or define (with the
// preStartHook) -> start. Each step lives in its own file and logs its duration.
import type { VMIRequest } from '../../gen/kubevirt/cmd/v1/cmd.js';
import { log } from '../../log.js';
import { parseVmiRequest } from '../../vmi.js';
import type { VmiView } from '../../vmi.js';
import { convertToDomain } from './convert.js';
import type { SyncEnv } from './env.js';
import { step } from './env.js';
import { gatherContext } from './gather-context.js';
import { linkImageVolumeFiles } from './image-volumes.js';
import { lookupOrDefine } from './lookup-or-define.js';
import { startIfDown } from './start.js';
import { reconcileRunning } from './runtime/reconcile.js';
import { validateSyncRequest } from './validate.js';

export async function syncVmi(env: SyncEnv, request: VMIRequest, pausedByUser: Set<string>): Promise<VmiView> {
  const vmi = parseVmiRequest(request.vmi?.vmiJson);
  validateSyncRequest(vmi, env.flags);
  if (env.flags.imageVolume) await step('link image volumes', vmi, () => linkImageVolumeFiles(env.paths, vmi));
  const context = await step('gather context', vmi, () => gatherContext(env, vmi, request.options));
  const { domainXml } = await step('convert', vmi, () => convertToDomain(vmi, context));
  const dom = await step('lookup or define', vmi, () => lookupOrDefine(env, vmi, domainXml));
  await step('start', vmi, async () => {
    await env.beforeDomainStart?.();
    await startIfDown(dom, vmi, pausedByUser);
  });
  // A domain that already ran gains or loses hotplug disks and NICs here (issue 20).
  await step('runtime', vmi, () => reconcileRunning(env, dom, vmi, domainXml));
  env.metadata.update((m) => {
    if (m.GracePeriod && m.GracePeriod.DeletionGracePeriodSeconds !== vmi.terminationGracePeriodSeconds) {
      m.GracePeriod.DeletionGracePeriodSeconds = vmi.terminationGracePeriodSeconds;
      log.info(`Set new termination grace period: ${vmi.terminationGracePeriodSeconds}`);
    }
  });
  return vmi;
}

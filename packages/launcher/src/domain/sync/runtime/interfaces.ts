// The interface half of the runtime reconcile (issue 20), after KubeVirt's network Sync: a NIC added to the VMI
// is attached live (the converter's element for it, plugged into the tap the pod side made), one marked
// `state: absent` is detached, and a `state: down`/`up` change sets the link of the running NIC.
import { log } from '../../../log.js';
import { devicesOf, linkState, withLinkState, type DeviceXml } from './devices.js';
import { RuntimeSyncError, type RuntimeDomain } from './types.js';

export interface InterfacePlan {
  attach: DeviceXml[];
  detach: DeviceXml[];
  link: Array<{ device: DeviceXml; state: 'up' | 'down' }>;
}

export interface InterfaceChanges {
  attached: string[];
  detached: string[];
  linked: string[];
}

const LIVE_AND_CONFIG = { live: true, config: true } as const;
const nameOf = (d: DeviceXml) => d.alias.replace(/^ua-/, '');

/**
 * Pure: `absent` names the VMI's interfaces with `state: absent` (the converter leaves those out), the only
 * ones a sync unplugs, so a NIC the VMI never named is not touched.
 */
export function planInterfaces(desiredXml: string, liveXml: string, absent: ReadonlySet<string>): InterfacePlan {
  const desired = devicesOf(desiredXml, 'interface').filter((d) => d.alias.startsWith('ua-'));
  const live = devicesOf(liveXml, 'interface');
  const liveByAlias = new Map(live.map((d) => [d.alias, d]));
  const desiredAliases = new Set(desired.map((d) => d.alias));
  const plan: InterfacePlan = { attach: [], detach: [], link: [] };
  for (const want of desired) {
    const have = liveByAlias.get(want.alias);
    if (!have) plan.attach.push(want);
    else if (linkState(want.xml) !== linkState(have.xml)) plan.link.push({ device: have, state: linkState(want.xml) });
  }
  plan.detach = live.filter((d) => absent.has(nameOf(d)) && !desiredAliases.has(d.alias));
  return plan;
}

async function run(what: string, device: DeviceXml, call: () => Promise<void>): Promise<void> {
  try {
    await call();
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new RuntimeSyncError(
      `spec.domain.devices.interfaces[${nameOf(device)}]`,
      nameOf(device),
      `${what} failed: ${reason}`,
      {
        cause: err,
      },
    );
  }
}

export async function syncInterfaces(
  dom: RuntimeDomain,
  desiredXml: string,
  liveXml: string,
  absent: ReadonlySet<string>,
): Promise<InterfaceChanges> {
  const plan = planInterfaces(desiredXml, liveXml, absent);
  for (const device of plan.detach) {
    await run('detaching', device, () => dom.detachDevice(device.xml, LIVE_AND_CONFIG));
    log.info(`Detached interface ${nameOf(device)}`);
  }
  for (const device of plan.attach) {
    await run('attaching', device, () => dom.attachDevice(device.xml, LIVE_AND_CONFIG));
    log.info(`Attached interface ${nameOf(device)}`);
  }
  for (const { device, state } of plan.link) {
    await run('setting the link state', device, () =>
      dom.updateDevice(withLinkState(device.xml, state), { live: true }),
    );
    log.info(`Set link state of interface ${nameOf(device)} to ${state}`);
  }
  return {
    attached: plan.attach.map(nameOf),
    detached: plan.detach.map(nameOf),
    linked: plan.link.map((l) => `${nameOf(l.device)}=${l.state}`),
  };
}

// What virt-handler does on the node for a changed VMI, before it calls the launcher: hotplug volumes are put
// at KubeVirt's hotplug path in the pod (/var/run/kubevirt/hotplug-disks/<volume>.img) and recorded in
// status.volumeStatus with their hotplugVolume entry, and a NIC on a secondary network gets its tap (named as
// KubeVirt names it) in the pod's network namespace.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { VirtualMachineInstance } from '@virt-launcher/converter';
import { hashedPodIfaceName, tapNameFor } from '@virt-launcher/netsetup';
import type { PodLayout } from './layout.js';

export class HotplugError extends Error {
  override name = 'HotplugError';
}

type Volume = NonNullable<NonNullable<VirtualMachineInstance['spec']>['volumes']>[number];

function hotpluggable(v: Volume): boolean {
  const pvc = v.persistentVolumeClaim as { hotpluggable?: boolean } | undefined;
  const dv = v.dataVolume as { hotpluggable?: boolean } | undefined;
  return pvc?.hotpluggable === true || dv?.hotpluggable === true;
}

/**
 * Links (or copies, across file systems) each hotpluggable volume's --volume file to the hotplug path, owned by
 * the pod's user; returns the VMI with status.volumeStatus filled as virt-handler fills it.
 */
export function prepareHotplugVolumes(
  vmi: VirtualMachineInstance,
  layout: PodLayout,
  files: Map<string, string>,
  owner: number | undefined,
): VirtualMachineInstance {
  const statuses: object[] = [];
  for (const v of vmi.spec?.volumes ?? []) {
    if (!hotpluggable(v)) {
      statuses.push({ name: v.name, target: '', phase: 'Ready' });
      continue;
    }
    const file = files.get(v.name);
    if (!file) throw new HotplugError(`volume ${v.name} is hotpluggable: give its file with --volume ${v.name}=FILE`);
    if (!fs.statSync(file, { throwIfNoEntry: false })?.isFile())
      throw new HotplugError(`--volume ${v.name}=${file}: no such file`);
    const target = layout.hostPath(`/var/run/kubevirt/hotplug-disks/${v.name}.img`);
    if (!fs.existsSync(target)) {
      fs.mkdirSync(path.dirname(target), { recursive: true });
      try {
        fs.linkSync(file, target);
      } catch {
        fs.copyFileSync(file, target);
      }
      if (owner !== undefined) fs.chownSync(target, owner, owner);
    }
    statuses.push({ name: v.name, target: '', phase: 'Ready', hotplugVolume: { attachPodName: 'virt-pod-hotplug' } });
  }
  const status = { ...(vmi.status ?? {}), volumeStatus: statuses };
  return { ...vmi, status } as VirtualMachineInstance;
}

/** Hotplug files of volumes no longer in the VMI (after their unplug): virt-handler unmounts them. */
export function removeUnpluggedVolumes(vmi: VirtualMachineInstance, layout: PodLayout): string[] {
  const dir = layout.hostPath('/var/run/kubevirt/hotplug-disks');
  const wanted = new Set((vmi.spec?.volumes ?? []).filter(hotpluggable).map((v) => `${v.name}.img`));
  const gone = (fs.existsSync(dir) ? fs.readdirSync(dir) : []).filter((f) => !wanted.has(f));
  for (const f of gone) fs.rmSync(path.join(dir, f), { force: true });
  return gone;
}

/** KubeVirt's tap for a NIC on a secondary network: `tap` and 11 hex digits of the network name's SHA-256. */
export function secondaryTapName(network: string): string {
  return tapNameFor(hashedPodIfaceName(network));
}

/** Makes (once) and brings up the tap of every bridge NIC on a Multus network; returns the taps it made. */
export function prepareSecondaryTaps(vmi: VirtualMachineInstance, podNs: string, owner: number | undefined): string[] {
  const multus = new Set((vmi.spec?.networks ?? []).filter((n) => n.multus).map((n) => n.name));
  const made: string[] = [];
  for (const iface of vmi.spec?.domain?.devices?.interfaces ?? []) {
    if (!iface.bridge || !multus.has(iface.name) || iface.state === 'absent') continue;
    const tap = secondaryTapName(iface.name);
    const ip = (...args: string[]) => execFileSync('ip', ['-n', podNs, ...args], { stdio: 'pipe' });
    try {
      ip('link', 'show', tap);
      continue;
    } catch {
      // not there yet: make it
    }
    ip(
      'tuntap',
      'add',
      tap,
      'mode',
      'tap',
      ...(owner !== undefined ? ['user', String(owner), 'group', String(owner)] : []),
    );
    ip('link', 'set', tap, 'up');
    made.push(tap);
  }
  return made;
}

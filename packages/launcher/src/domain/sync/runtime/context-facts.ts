// What the converter must know for a running domain's hotplug devices, read from the VMI and the pod:
// which volumes are hotplugged (status.volumeStatus[].hotplugVolume, as virt-handler writes it) and which tap
// the pod side made for a NIC on a secondary (Multus) network, named as KubeVirt names it.
import { readFile } from 'node:fs/promises';
import type { ConverterContext } from '../../../adapters/converter.js';
import { secondaryTapName } from '@virt-launcher/shared';
import type { VmiView } from '../../../vmi.js';

export { secondaryTapName };

interface VolumeStatusDoc {
  name?: string;
  target?: string;
  phase?: string;
  hotplugVolume?: object;
}

/**
 * hotplugVolumes and permanentVolumes for the converter: a status entry with `hotplugVolume` is a hotplug
 * volume (joined to the domain once its phase says it is mounted), any other entry a permanent one. As the
 * converter then leaves out every disk whose volume is in neither map, the permanent map is only filled when the
 * VMI has a hotplug volume at all: a status that lists some volumes but not others (as a test or an older
 * handler may send) keeps every disk, as before hotplug existed.
 */
export function volumeStatusMaps(vmi: VmiView): Pick<ConverterContext, 'hotplugVolumes' | 'permanentVolumes'> {
  const doc = JSON.parse(vmi.raw.toString('utf8')) as { status?: { volumeStatus?: VolumeStatusDoc[] } };
  const hotplugVolumes: ConverterContext['hotplugVolumes'] = {};
  const permanentVolumes: ConverterContext['permanentVolumes'] = {};
  for (const s of doc.status?.volumeStatus ?? []) {
    if (!s.name) continue;
    const status = { name: s.name, target: s.target ?? '', phase: s.phase ?? '' };
    if (s.hotplugVolume) hotplugVolumes[s.name] = status;
    else permanentVolumes[s.name] = status;
  }
  if (Object.keys(hotplugVolumes).length === 0) return { hotplugVolumes, permanentVolumes: {} };
  return { hotplugVolumes, permanentVolumes };
}

/** MTU of each secondary-network tap that exists in the pod, by interface name (bridge binding only). */
export async function probeSecondaryTaps(vmi: VmiView): Promise<Record<string, { tapName: string; mtu: number }>> {
  const multus = new Set(vmi.networks.filter((n) => n.multus).map((n) => n.name));
  const out: Record<string, { tapName: string; mtu: number }> = {};
  for (const iface of vmi.interfaces) {
    if (!iface.bridge || !multus.has(iface.name)) continue;
    const tapName = secondaryTapName(iface.name);
    const mtu = await readFile(`/sys/class/net/${tapName}/mtu`, 'utf8').then(
      (t) => Number(t.trim()) || 0,
      () => undefined,
    );
    if (mtu !== undefined) out[iface.name] = { tapName, mtu };
  }
  return out;
}

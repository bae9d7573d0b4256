// The live disks and interfaces of a domain (api.Domain's Spec.Devices, Go field names), one row each, so
// `launcherctl domain` shows what a hotplug or an unplug changed: target, volume or NIC name, backing, state.
type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const list = (v: unknown): Json[] => (Array.isArray(v) ? v.filter(isObject) : []);
const field = (o: unknown, key: string): string => (isObject(o) && o[key] ? String(o[key]) : '');

/** KubeVirt's alias: a VMI device is Name plus UserDefined (libvirt's `ua-` prefix), others libvirt's own. */
function aliasName(device: Json): string {
  const alias = device.Alias;
  if (!isObject(alias) || !alias.Name) return '-';
  return alias.UserDefined ? String(alias.Name) : `(${String(alias.Name)})`;
}

export function deviceRows(devices: Json): Array<[string, string]> {
  const rows: Array<[string, string]> = [];
  for (const d of list(devices.Disks)) {
    const source = field(d.Source, 'File') || field(d.Source, 'Dev') || '-';
    const bus = field(d.Target, 'Bus') || '-';
    rows.push([
      `disk ${field(d.Target, 'Device') || '?'}`,
      `${aliasName(d)} ${field(d, 'Device') || 'disk'} ${bus} ${source}`,
    ]);
  }
  for (const i of list(devices.Interfaces)) {
    const link = field(i.LinkState, 'State') || 'up';
    const tap = field(i.Target, 'Device') || '-';
    rows.push([
      `interface ${aliasName(i)}`,
      `${field(i.MAC, 'MAC') || '-'} ${field(i, 'Type') || '-'} ${tap} link ${link}`,
    ]);
  }
  return rows;
}

// KubeVirt's admission rules for an interface's portRanges (feature gate PortRangesSpec, taken as on): only
// on a masquerade interface of the pod network, never beside `ports`, at most ten, each TCP or UDP with
// 1 <= start <= end <= 65535, and no two ranges of one protocol overlapping. The pod network set-up
// (netsetup) turns them into DNAT rules, so a range that passes here is one it can forward.
import { ConversionError, quote } from '../errors.js';

type Obj = Record<string, unknown>;

/** KubeVirt's admission limit on the ranges of one interface. */
export const MAX_PORT_RANGES = 10;
const PROTOCOLS = ['TCP', 'UDP'];

interface Interval {
  protocol: string;
  start: number;
  end: number;
}

function isPort(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v > 0 && v < 65536;
}

/** One range's fields, each refused naming itself; returns the interval once it is valid. */
function checkedRange(range: unknown, path: string): Interval {
  if (typeof range !== 'object' || range === null || Array.isArray(range)) {
    throw new ConversionError(path, range, `${quote(range)} is not an object`);
  }
  const { protocol, start, end } = range as Obj;
  if (typeof protocol !== 'string' || !PROTOCOLS.includes(protocol)) {
    throw new ConversionError(`${path}.protocol`, protocol, `${quote(protocol)} is not TCP or UDP`);
  }
  if (!isPort(start)) throw new ConversionError(`${path}.start`, start, `${quote(start)} is not a port (1 to 65535)`);
  if (!isPort(end)) throw new ConversionError(`${path}.end`, end, `${quote(end)} is not a port (1 to 65535)`);
  if (start > end) throw new ConversionError(`${path}.start`, start, `${start} is above the range's end ${end}`);
  return { protocol, start, end };
}

/** Two ranges of one protocol may not share a port: each port must have one forwarding rule. */
function refuseOverlaps(intervals: Interval[], path: string): void {
  const sorted = [...intervals].sort((a, b) =>
    a.protocol === b.protocol ? a.start - b.start || a.end - b.end : a.protocol < b.protocol ? -1 : 1,
  );
  for (let i = 1; i < sorted.length; i += 1) {
    const prev = sorted[i - 1]!;
    const curr = sorted[i]!;
    if (prev.protocol === curr.protocol && curr.start <= prev.end) {
      throw new ConversionError(
        path,
        [prev, curr],
        `${curr.protocol} ranges ${prev.start}-${prev.end} and ${curr.start}-${curr.end} overlap`,
      );
    }
  }
}

/** Checks `portRanges` of one interface (`path` is the interface's path) against the VMI's networks. */
function validateInterfacePortRanges(iface: Obj, path: string, networks: readonly Obj[]): void {
  const ranges = iface.portRanges;
  if (ranges === undefined || ranges === null) return;
  const field = `${path}.portRanges`;
  if (!Array.isArray(ranges)) throw new ConversionError(field, ranges, `${quote(ranges)} is not a list`);
  // As KubeVirt's admission: the rules below hold for an interface of the pod network.
  if (!networks.some((n) => n.name === iface.name && n.pod !== undefined && n.pod !== null)) return;
  if (Array.isArray(iface.ports)) {
    throw new ConversionError(field, ranges, 'cannot be set together with ports on one interface');
  }
  if (iface.masquerade === undefined || iface.masquerade === null) {
    throw new ConversionError(field, ranges, 'is only supported on a masquerade interface');
  }
  if (ranges.length > MAX_PORT_RANGES) {
    throw new ConversionError(field, ranges.length, `${ranges.length} ranges: at most ${MAX_PORT_RANGES} are allowed`);
  }
  refuseOverlaps(
    ranges.map((r, i) => checkedRange(r, `${field}[${i}]`)),
    field,
  );
}

/** The portRanges of every interface of a VMI spec whose lists were already checked to hold objects. */
export function validatePortRanges(spec: Obj): void {
  const networks = (spec.networks as Obj[] | undefined) ?? [];
  const devices = (spec.domain as Obj | undefined)?.devices as Obj | undefined;
  const interfaces = (devices?.interfaces as Obj[] | undefined) ?? [];
  interfaces.forEach((iface, i) =>
    validateInterfacePortRanges(iface, `spec.domain.devices.interfaces[${i}]`, networks),
  );
}

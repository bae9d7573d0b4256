// Port declarations of the VMI interface ("tcp:80", "udp:53", "8000-8010", "sctp:9") as PortSpec values.
import { InvalidPortError } from './errors.js';
import type { PortSpec } from './gen/virtlauncher/netsetup/v1/netsetup.js';

const PROTOCOLS = new Set(['tcp', 'udp', 'sctp']);

function parsePortNumber(text: string, spec: string): number {
  if (!/^\d{1,5}$/.test(text)) throw new InvalidPortError(spec, `"${text}" is not a port number`);
  const port = Number(text);
  if (port < 1 || port > 65535) throw new InvalidPortError(spec, `${port} is outside 1..65535`);
  return port;
}

/**
 * One "proto:port" or "proto:first-last"; the protocol defaults to tcp as in KubeVirt. A range stays a range
 * even when first equals last: KubeVirt writes a portRanges entry as "start-end" whatever its length.
 */
export function parsePort(spec: string): PortSpec {
  const trimmed = spec.trim();
  const colon = trimmed.indexOf(':');
  const protocol = colon >= 0 ? trimmed.slice(0, colon).toLowerCase() : 'tcp';
  const rest = colon >= 0 ? trimmed.slice(colon + 1) : trimmed;
  if (!PROTOCOLS.has(protocol)) throw new InvalidPortError(spec, `protocol "${protocol}" is not tcp, udp or sctp`);
  const dash = rest.indexOf('-');
  if (dash < 0) return { protocol, port: parsePortNumber(rest, spec), portEnd: 0 };
  const port = parsePortNumber(rest.slice(0, dash), spec);
  const portEnd = parsePortNumber(rest.slice(dash + 1), spec);
  if (portEnd < port) throw new InvalidPortError(spec, `range end ${portEnd} is below its start ${port}`);
  return { protocol, port, portEnd };
}

/** A comma-separated list as the CLI's --ports takes it; empty means "no declared ports". */
export function parsePorts(list: string): PortSpec[] {
  return list
    .split(',')
    .filter((part) => part.trim() !== '')
    .map(parsePort);
}

/** KubeVirt's portRanges allow only these protocols (its admission refuses sctp there). */
const RANGE_PROTOCOLS = new Set(['tcp', 'udp']);

/** A VMI interface's portRanges entry ({protocol: "TCP", start, end}) as a PortSpec range. */
export function portRangeSpec(range: { protocol: string; start: number; end: number }): PortSpec {
  const text = `${range.protocol}:${range.start}-${range.end}`;
  const protocol = String(range.protocol ?? '').toLowerCase();
  if (!RANGE_PROTOCOLS.has(protocol))
    throw new InvalidPortError(text, `protocol "${range.protocol}" is not TCP or UDP`);
  return parsePort(`${protocol}:${range.start}-${range.end}`);
}

/** Checks PortSpec values that came through the proto (not through parsePort). */
export function validatePorts(ports: readonly PortSpec[]): PortSpec[] {
  return ports.map((p) => {
    const text = `${p.protocol}:${p.port}${p.portEnd ? `-${p.portEnd}` : ''}`;
    const parsed = parsePort(`${(p.protocol || 'tcp').toLowerCase()}:${p.port}${p.portEnd ? `-${p.portEnd}` : ''}`);
    if (parsed.port !== p.port) throw new InvalidPortError(text, 'not a valid port');
    return parsed;
  });
}

/** The nft form of the destination port: "80" or "8000-8010". */
export function dportText(p: PortSpec): string {
  return p.portEnd ? `${p.port}-${p.portEnd}` : `${p.port}`;
}

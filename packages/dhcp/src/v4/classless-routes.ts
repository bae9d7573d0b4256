// Option 121, classless static routes (RFC 3442): per route the prefix width, the significant destination octets,
// then the 4-byte router (0.0.0.0 = on-link).
import { DhcpDecodeError, DhcpEncodeError } from '../errors.js';
import { formatIPv4, parseCidr4, parseIPv4, prefixToMask } from '../addr.js';

export interface ClasslessRoute {
  /** CIDR, "0.0.0.0/0" for the default route. */
  destination: string;
  /** Router; "" or "0.0.0.0" for on-link. */
  gateway: string;
}

/**
 * Encodes routes in the given order except that default routes go last, as KubeVirt does: some clients install
 * routes in order and need the on-link route to the gateway before the default route through it.
 */
export function encodeClasslessRoutes(routes: readonly ClasslessRoute[]): Buffer {
  const ordered = [
    ...routes.filter((r) => !r.destination.endsWith('/0')),
    ...routes.filter((r) => r.destination.endsWith('/0')),
  ];
  const out: number[] = [];
  for (const route of ordered) {
    const cidr = parseCidr4(route.destination);
    if (!cidr) throw new DhcpEncodeError(`route destination "${route.destination}" is not an IPv4 CIDR`, 121);
    const gateway = parseIPv4(route.gateway === '' ? '0.0.0.0' : route.gateway);
    if (!gateway) throw new DhcpEncodeError(`route gateway "${route.gateway}" is not an IPv4 address`, 121);
    const mask = prefixToMask(cidr.prefix);
    const significant = Math.ceil(cidr.prefix / 8);
    out.push(cidr.prefix);
    for (let i = 0; i < significant; i++) out.push((cidr.address[i] ?? 0) & (mask[i] ?? 0));
    out.push(...gateway);
  }
  return Buffer.from(out);
}

export function decodeClasslessRoutes(data: Uint8Array): ClasslessRoute[] {
  const routes: ClasslessRoute[] = [];
  let i = 0;
  while (i < data.length) {
    const width = data[i] ?? 0;
    if (width > 32) throw new DhcpDecodeError(`route prefix width ${width} exceeds 32`, i);
    const significant = Math.ceil(width / 8);
    if (i + 1 + significant + 4 > data.length) throw new DhcpDecodeError('route runs past the option', i);
    const dest = Buffer.alloc(4);
    Buffer.from(data.subarray(i + 1, i + 1 + significant)).copy(dest);
    routes.push({
      destination: `${formatIPv4(dest)}/${width}`,
      gateway: formatIPv4(data, i + 1 + significant),
    });
    i += 1 + significant + 4;
  }
  return routes;
}

// What phase 2 reads of a link in the pod's own network namespace (the launcher runs in it): its MTU, MAC and
// addresses. KubeVirt's launcher asks netlink (pkg/network/driver/common.go LinkByName, HasIPv4/6GlobalUnicast-
// Address); here sysfs gives MTU and MAC and the kernel's address list comes through os.networkInterfaces().
import { readFile } from 'node:fs/promises';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { isGlobalUnicast } from '@virt-launcher/shared';

export interface PodLinkFacts {
  name: string;
  mtu: number;
  mac: string;
  ipv4: string[];
  ipv6: string[];
}

/** A link phase 2 needs is missing or unreadable in the pod's network namespace. */
export class PodLinkError extends Error {
  constructor(
    readonly link: string,
    reason: string,
  ) {
    super(`pod interface ${link}: ${reason}`);
    this.name = 'PodLinkError';
  }
}

const LINK_NAME = /^[A-Za-z0-9_.-]{1,15}$/;

export interface PodLinkSources {
  /** Default /sys/class/net. */
  sysClassNet?: string;
  /** Default os.networkInterfaces (addresses of links that are up). */
  addresses?: () => ReturnType<typeof networkInterfaces>;
}

async function sysValue(dir: string, link: string, key: string): Promise<string> {
  try {
    // A sysfs attribute is a short line: read it whole, there is nothing to bound.
    return (await readFile(join(dir, link, key), 'utf8')).trim();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new PodLinkError(link, code === 'ENOENT' ? "no such link in the pod's network namespace" : String(err));
  }
}

export async function podLinkFacts(link: string, sources: PodLinkSources = {}): Promise<PodLinkFacts> {
  // The name becomes a path under sysfs: only a kernel link name may get that far.
  if (!LINK_NAME.test(link) || link === '.' || link === '..') throw new PodLinkError(link, 'not a link name');
  const dir = sources.sysClassNet ?? '/sys/class/net';
  const mtuText = await sysValue(dir, link, 'mtu');
  const mtu = Number(mtuText);
  // 65536 is loopback's; nothing above it is a kernel MTU.
  if (!/^\d{1,5}$/.test(mtuText) || mtu < 68 || mtu > 65536) throw new PodLinkError(link, `MTU "${mtuText}"`);
  const mac = await sysValue(dir, link, 'address');
  const list = (sources.addresses ?? networkInterfaces)()[link] ?? [];
  return {
    name: link,
    mtu,
    mac,
    ipv4: list.filter((a) => a.family === 'IPv4').map((a) => a.address),
    ipv6: list.filter((a) => a.family === 'IPv6').map((a) => a.address.replace(/%.*$/, '')),
  };
}

export const hasGlobalIpv4 = (facts: PodLinkFacts) => facts.ipv4.some(isGlobalUnicast);
export const hasGlobalIpv6 = (facts: PodLinkFacts) => facts.ipv6.some(isGlobalUnicast);

// Phase 2 reads the pod's links from its own network namespace; this test reads the real loopback link and a
// sysfs-shaped folder it makes itself for what loopback cannot show (a global address, bad values).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hasGlobalIpv4, hasGlobalIpv6, PodLinkError, podLinkFacts } from './pod-link.js';

let sys = '';

async function fakeLink(name: string, mtu: string, mac = '0a:58:0a:f4:01:07') {
  await mkdir(join(sys, name), { recursive: true });
  await writeFile(join(sys, name, 'mtu'), `${mtu}\n`);
  await writeFile(join(sys, name, 'address'), `${mac}\n`);
}

beforeAll(async () => {
  sys = await mkdtemp(join(tmpdir(), 'vlt-launcher-sysnet-'));
});
afterAll(() => rm(sys, { recursive: true, force: true }));

describe('podLinkFacts', () => {
  it('reads the real loopback link: its MTU from sysfs, its addresses from the kernel, none of them global', async () => {
    const lo = await podLinkFacts('lo');
    expect(lo.mtu).toBeGreaterThanOrEqual(1500);
    expect(lo.ipv4).toContain('127.0.0.1');
    expect(hasGlobalIpv4(lo)).toBe(false);
    expect(hasGlobalIpv6(lo)).toBe(false);
  });

  it('a global IPv4 and IPv6 address count; link-local ones do not', async () => {
    await fakeLink('eth0', '1450');
    const addresses = () => ({
      eth0: [
        { address: '10.244.1.7', family: 'IPv4', netmask: '255.255.255.0', mac: '', internal: false, cidr: null },
        {
          address: 'fe80::1%eth0',
          family: 'IPv6',
          netmask: 'ffff::',
          mac: '',
          internal: false,
          cidr: null,
          scopeid: 2,
        },
      ],
    });
    const facts = await podLinkFacts('eth0', { sysClassNet: sys, addresses: addresses as never });
    expect(facts).toEqual({
      name: 'eth0',
      mtu: 1450,
      mac: '0a:58:0a:f4:01:07',
      ipv4: ['10.244.1.7'],
      ipv6: ['fe80::1'],
    });
    expect(hasGlobalIpv4(facts)).toBe(true);
    expect(hasGlobalIpv6(facts)).toBe(false);
  });

  it('names the link and the problem: missing, bad MTU, a name that is a path', async () => {
    await expect(podLinkFacts('eth9', { sysClassNet: sys })).rejects.toThrow(
      "pod interface eth9: no such link in the pod's network namespace",
    );
    await fakeLink('bad0', 'lots');
    await expect(podLinkFacts('bad0', { sysClassNet: sys })).rejects.toThrow('pod interface bad0: MTU "lots"');
    await expect(podLinkFacts('../etc', { sysClassNet: sys })).rejects.toBeInstanceOf(PodLinkError);
  });
});

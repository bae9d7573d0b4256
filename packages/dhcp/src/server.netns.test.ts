// End to end in namespaces: busybox udhcpc in a guest netns against virt-dhcp in a pod netns whose default route
// points away from the bridge.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { type PodNetwork, createPodNetwork } from './testing/pod-network.js';
import { runUdhcpc } from './testing/udhcpc.js';
import { type CliProcess, startCli } from './testing/cli-process.js';

const serveArgs = [
  '--interface',
  'k6t-eth0',
  '--server-ip',
  '10.0.2.1',
  '--client-ip',
  '10.0.2.2/24',
  '--router',
  '10.0.2.1',
  '--dns',
  '10.96.0.10,10.96.0.11',
  '--search',
  'default.svc.cluster.local,svc.cluster.local,cluster.local,bad..domain',
  '--mtu',
  '1450',
  '--hostname',
  'vmi-fedora',
  '--route',
  '192.168.1.0/24,10.0.2.1',
  '--route',
  '10.128.0.0/14,',
  '--lease-seconds',
  '3600',
];

describe('virt-dhcp on a pod bridge', () => {
  let net: PodNetwork;
  let server: CliProcess;

  beforeAll(async () => {
    net = await createPodNetwork();
    server = await startCli(net.pod, [...serveArgs, '--client-mac', net.guestMac]);
  });
  afterAll(async () => {
    await server?.stop();
    await net?.remove();
  });

  it('leases the guest every configured option through the bridge', async () => {
    const eth0Before = await net.txPackets(net.pod, 'eth0');
    const bridgeBefore = await net.txPackets(net.pod, 'k6t-eth0');
    const r = await runUdhcpc(net);
    expect(r.exitCode, r.output).toBe(0);
    expect(r.bound).toMatchObject({
      ip: '10.0.2.2',
      subnet: '255.255.255.0',
      mask: '24',
      router: '10.0.2.1',
      dns: '10.96.0.10 10.96.0.11',
      mtu: '1450',
      hostname: 'vmi-fedora',
      domain: 'default.svc.cluster.local',
      search: 'default.svc.cluster.local svc.cluster.local cluster.local',
      staticroutes: '192.168.1.0/24 10.0.2.1 10.128.0.0/14 0.0.0.0 0.0.0.0/0 10.0.2.1',
      serverid: '10.0.2.1',
      lease: '3600',
    });
    // Nothing went out of the interface that holds the default route.
    expect(await net.txPackets(net.pod, 'eth0')).toBe(eth0Before);
    expect(await net.txPackets(net.pod, 'k6t-eth0')).toBeGreaterThanOrEqual(bridgeBefore + 2);
    expect(server.lines.some((l) => l.msg === 'dropping invalid search domain' && l.domain === 'bad..domain')).toBe(
      true,
    );
  });

  it('offers the guest address to a client asking for another one', async () => {
    const r = await runUdhcpc(net, ['-r', '10.0.2.77']);
    // udhcpc -r puts 10.0.2.77 in its DISCOVER; the offer is still the guest's address, which it then requests.
    // NAKs for REQUESTs are exercised with crafted packets in crafted.netns.test.ts.
    expect(r.bound?.ip).toBe('10.0.2.2');
  });

  it('writes JSON log lines with KubeVirt keys', async () => {
    // A lease of its own, so the lines exist when this test runs alone (-t).
    expect((await runUdhcpc(net)).exitCode).toBe(0);
    const sent = server.lines.filter((l) => typeof l.msg === 'string' && l.msg.startsWith('sent '));
    expect(sent.length).toBeGreaterThan(0);
    for (const l of sent) {
      expect(Object.keys(l)).toEqual(expect.arrayContaining(['component', 'level', 'msg', 'pos', 'timestamp']));
      expect(l.component).toBe('virt-dhcp');
    }
  });
});

describe('masquerade mode and the control case', () => {
  let net: PodNetwork;
  beforeAll(async () => {
    net = await createPodNetwork();
  });
  afterAll(async () => {
    await net?.remove();
  });

  it('sends 255.255.255.255 out of the default-route interface, not the bridge', async () => {
    const eth0Before = await net.txPackets(net.pod, 'eth0');
    const send =
      `const s=require('dgram').createSocket('udp4');s.bind(0,()=>{s.setBroadcast(true);` +
      `s.send(Buffer.alloc(300),68,'255.255.255.255',()=>s.close())})`;
    await execa('ip', ['netns', 'exec', net.pod, process.execPath, '-e', send]);
    expect(await net.txPackets(net.pod, 'eth0')).toBe(eth0Before + 1);
  });

  it('answers any client when no --client-mac is given (masquerade)', async () => {
    const server = await startCli(net.pod, [
      '--interface',
      'k6t-eth0',
      '--server-ip',
      '10.0.2.1',
      '--client-ip',
      '10.0.2.2/24',
    ]);
    try {
      const r = await runUdhcpc(net);
      expect(r.bound?.ip, r.output).toBe('10.0.2.2');
      expect(r.bound?.router).toBeUndefined();
    } finally {
      await server.stop();
    }
  });
});

// virt-pod end to end with a VMI that picks its own VM network: examples/vmi-demo.yaml with
// vmNetworkCIDR 10.11.12.0/24 and dhcpOptions. virt-pod's masquerade phase plans from the VMI (netsetup's
// masqueradeRequestFor), the launcher serves the cached config plus the VMI's dhcpOptions, and the guest must get
// 10.11.12.2 with 10.11.12.1 as router, still reach the node through masquerade and serve port 80 through the pod.
// The hypervisor is chosen: emulation, so the pod has no /dev/kvm whatever the host has.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse, stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDemoGuest, demoArgs, leftovers, nothingLeft, repo, runRootOf, snapshot, startPod } from './e2e-kit.js';

let dir = '';
let vmiFile = '';

beforeAll(() => {
  buildDemoGuest();
  const vmi = parse(fs.readFileSync(path.join(repo, 'examples/vmi-demo.yaml'), 'utf8')) as {
    spec: {
      networks: Array<{ name: string; pod?: Record<string, string> }>;
      domain: { devices: { interfaces: Array<Record<string, unknown>> } };
    };
  };
  vmi.spec.networks[0]!.pod = { vmNetworkCIDR: '10.11.12.0/24' };
  vmi.spec.domain.devices.interfaces[0]!.dhcpOptions = { bootFileName: 'vlt-boot.ipxe', ntpServers: ['10.11.12.1'] };
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vlt-pod-cidr-'));
  vmiFile = path.join(dir, 'vmi-cidr.yaml');
  fs.writeFileSync(vmiFile, stringify(vmi));
});

afterAll(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('virt-pod run with vmNetworkCIDR 10.11.12.0/24 --until-lease --hypervisor emulation', () => {
  it('the guest gets 10.11.12.2 via 10.11.12.1, reaches the node and serves port 80', async () => {
    const before = snapshot();
    const args = demoArgs(['--hypervisor', 'emulation', '--until-lease', '--timeout', '240']);
    args[2] = vmiFile;
    const pod = startPod(args);
    const status = await pod.exited;
    const out = pod.output();
    expect(status, out).toBe(0);
    expect(out).toMatch(/bridge k6t-eth0 10\.11\.12\.1\/24, tap tap0, guest 10\.11\.12\.2\/24/);
    expect(out).toMatch(/guest lease: ip=10\.11\.12\.2 router=10\.11\.12\.1 /);
    expect(out).toMatch(/node received "hello-from-guest" from 192\.0\.2\.10 /);
    expect(out).toMatch(/node → pod:80 reached the guest's web server: "hello from demo"/);
    expect(leftovers(before, runRootOf(out), out)).toEqual(nothingLeft);
  }, 420_000);
});

import { describe, expect, it } from 'vitest';
import { parseCli, UsageError, type MasqueradeArgs } from './cli-args.js';

const base = ['masquerade', '--netns', 'ns', '--pod-iface', 'eth0'];

describe('virt-netsetup masquerade flags', () => {
  it('refuses the guest DHCP flags: phase 2 (the launcher) takes them from the VMI', () => {
    // KubeVirt's node side (pkg/network/setup/netpod) never sees dhcpOptions or the subdomain.
    for (const flag of ['--ntp', '--subdomain', '--bootfile', '--resolv-conf']) {
      expect(() => parseCli([...base, flag, 'x']), flag).toThrow(UsageError);
    }
  });

  it('--vmi with --iface; the flags the VMI decides are refused beside it', () => {
    const a = parseCli([...base, '--vmi', 'vmi.json', '--iface', 'default', '--queues', '2']) as MasqueradeArgs;
    expect(a).toMatchObject({ vmi: 'vmi.json', iface: 'default', queues: 2 });
    expect(() => parseCli([...base, '--vmi', 'vmi.json', '--vm-cidr', '10.1.0.0/24'])).toThrow(
      /--vmi decides --vm-cidr/,
    );
    expect(() => parseCli([...base, '--vmi', 'vmi.json', '--ipv6'])).toThrow(UsageError);
    expect(() => parseCli([...base, '--iface', 'default'])).toThrow(/--iface needs --vmi/);
  });

  it.each(['240', '100=x', '255=x', 'x=1'])('refuses --private-option %s', (value) => {
    expect(() => parseCli([...base, '--private-option', value])).toThrow(UsageError);
  });
});

import { describe, expect, it } from 'vitest';
import { parseCli, UsageError, type MasqueradeArgs } from './cli-args.js';

const base = ['masquerade', '--netns', 'ns', '--pod-iface', 'eth0'];

describe('virt-netsetup masquerade flags', () => {
  it('DHCP options 42, 66, 67 and private ones from the flags', () => {
    const a = parseCli([
      ...base,
      '--ntp',
      '10.0.0.5,10.0.0.6',
      '--tftp-server',
      'tftp.example',
      '--bootfile',
      'pxelinux.0',
      '--private-option',
      '240=hello',
      '--private-option',
      '254=',
    ]) as MasqueradeArgs;
    expect(a.dhcpOptions).toEqual({
      ntpServers: ['10.0.0.5', '10.0.0.6'],
      tftpServerName: 'tftp.example',
      bootfileName: 'pxelinux.0',
      privateOptions: [
        { code: 240, value: Buffer.from('hello') },
        { code: 254, value: Buffer.alloc(0) },
      ],
    });
    expect((parseCli(base) as MasqueradeArgs).dhcpOptions).toBeUndefined();
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

// The demo's guest-agent lines from GetDomain's Status.
import { describe, expect, it } from 'vitest';
import { agentReportLines } from './guest-agent-report.js';

describe('agentReportLines', () => {
  it('names the OS and every interface with its IPs', () => {
    const lines = agentReportLines({
      Status: {
        OSInfo: { PrettyName: 'VLT demo guest 1 (busybox)', KernelRelease: '6.1.0-57-cloud-amd64' },
        Interfaces: [{ InterfaceName: 'eth0', Mac: '02:00:00:00:00:01', Ip: '10.0.2.2', IPs: ['10.0.2.2', 'fd10::2'] }],
      },
    });
    expect(lines).toEqual([
      'guest agent: OS VLT demo guest 1 (busybox), kernel 6.1.0-57-cloud-amd64',
      'guest agent: eth0 10.0.2.2, fd10::2 (mac 02:00:00:00:00:01)',
    ]);
  });

  it('waits (undefined) until both the OS and an address are there', () => {
    expect(agentReportLines({ Status: { OSInfo: { PrettyName: 'x' } } })).toBeUndefined();
    expect(
      agentReportLines({ Status: { Interfaces: [{ InterfaceName: 'eth0', IPs: ['10.0.2.2'] }] } }),
    ).toBeUndefined();
    expect(agentReportLines({})).toBeUndefined();
  });
});

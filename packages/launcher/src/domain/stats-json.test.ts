import { describe, expect, it } from 'vitest';
import { domainStatsJson } from './stats-json.js';

describe('domain stats JSON', () => {
  it('maps libvirt typed parameters to Go names with Set flags', () => {
    const json = domainStatsJson(
      {
        name: 'ns_vm',
        uuid: 'u',
        stats: {
          'cpu.time': 123,
          'balloon.current': 131072,
          'vcpu.current': 1,
          'vcpu.maximum': 1,
          'vcpu.0.state': 1,
          'vcpu.0.time': 99,
          'net.count': 1,
          'net.0.name': 'tap0',
          'net.0.rx.bytes': 10,
          'block.count': 1,
          'block.0.name': 'vda',
          'block.0.path': '/d.qcow2',
          'block.0.wr.reqs': 4,
        },
      },
      { tap0: 'default' },
    ) as {
      Name: string;
      Cpu: object;
      Memory: object;
      Vcpu: object[];
      Net: object[];
      Block: object[];
    };
    expect(json.Name).toBe('ns_vm');
    expect(json.Cpu).toMatchObject({ TimeSet: true, Time: 123, UserSet: false });
    expect(json.Memory).toMatchObject({ ActualBalloonSet: true, ActualBalloon: 131072, RSSSet: false });
    expect(json.Vcpu).toEqual([
      { StateSet: true, State: 1, TimeSet: true, Time: 99, WaitSet: false, Wait: 0, DelaySet: false, Delay: 0 },
    ]);
    expect(json.Net[0]).toMatchObject({
      Name: 'tap0',
      Alias: 'default',
      AliasSet: true,
      RxBytesSet: true,
      RxBytes: 10,
      TxBytesSet: false,
    });
    expect(json.Block[0]).toMatchObject({ Name: 'vda', Path: '/d.qcow2', WrReqsSet: true, WrReqs: 4 });
  });
});

import { describe, expect, it } from 'vitest';
import { goDecode } from '../testing/go-decode.js';
import { domainStatsJson } from './stats-json.js';
import { CpuSetError, deviceAliasMap, parseCpuSet, vcpuPinMap } from './stats-payload.js';

type AnyJson = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const record = {
  name: 'ns_vm',
  uuid: 'u',
  stats: {
    'cpu.time': 123,
    'balloon.current': 131072,
    'balloon.maximum': 262144,
    'balloon.rss': 9000,
    'vcpu.current': 1,
    'vcpu.maximum': 1,
    'vcpu.0.state': 1,
    'vcpu.0.time': 99n,
    'net.count': 1,
    'net.0.name': 'tap0',
    'net.0.rx.bytes': 10,
    'block.count': 2,
    'block.0.name': 'vda',
    'block.0.path': '/d.qcow2',
    'block.0.wr.reqs': 4,
    'block.1.name': 'sdz',
    'dirtyrate.calc_status': 2,
    'dirtyrate.megabytes_per_second': 3,
  },
};

describe('domain stats JSON', () => {
  const json = domainStatsJson(record, {
    aliases: { tap0: 'default', vda: 'containerdisk' },
    cpuMap: [[true, false]],
  }) as AnyJson;

  it('decodes into stats.DomainStats with Go rules', () => {
    expect(() => goDecode('DomainStats', JSON.stringify(json), 'stats')).not.toThrow();
  });

  it('maps libvirt typed parameters to Go names with Set flags', () => {
    expect(json.Name).toBe('ns_vm');
    expect(json.Cpu).toEqual({ TimeSet: true, Time: 123, UserSet: false, User: 0, SystemSet: false, System: 0 });
    expect(json.Vcpu).toEqual([
      { StateSet: true, State: 1, TimeSet: true, Time: 99, WaitSet: false, Wait: 0, DelaySet: false, Delay: 0 },
    ]);
    expect(json.DirtyRate).toMatchObject({
      CalcStatusSet: true,
      CalcStatus: 2,
      MegabytesPerSecond: 3,
      CalcPeriodSet: false,
    });
    expect(json.MigrateDomainJobInfo).toBeNull();
    expect(json.Load).toBeNull();
  });

  it('takes Memory.Total (and the actual balloon) from balloon.current, not the maximum', () => {
    expect(json.Memory).toMatchObject({
      TotalSet: true,
      Total: 131072,
      ActualBalloonSet: true,
      ActualBalloon: 131072,
      RSSSet: true,
      RSS: 9000,
      UnusedSet: false,
    });
  });

  it('names devices by the VMI through the alias map; unknown devices keep an empty alias', () => {
    expect(json.Net[0]).toMatchObject({ NameSet: true, Name: 'tap0', AliasSet: true, Alias: 'default', RxBytes: 10 });
    expect(json.Block[0]).toMatchObject({
      Name: 'vda',
      Alias: 'containerdisk',
      PathSet: true,
      WrReqsSet: true,
      WrReqs: 4,
    });
    expect(json.Block[1]).toMatchObject({ Name: 'sdz', Alias: '', PathSet: false });
    expect(json.Block[0]).not.toHaveProperty('AliasSet');
  });

  it('passes the CPU map with CPUMapSet, and the running job as MigrateDomainJobInfo', () => {
    expect(json).toMatchObject({ CPUMapSet: true, CPUMap: [[true, false]] });
    const withJob = domainStatsJson(record, {
      jobStats: {
        data_total: 100,
        data_processed: 40,
        data_remaining: 60,
        memory_dirty_rate: 5,
        memory_page_size: 4096,
      },
    }) as AnyJson;
    expect(withJob.CPUMapSet).toBe(false);
    expect(withJob.MigrateDomainJobInfo).toEqual({
      DataTotalSet: true,
      DataTotal: 100,
      DataProcessedSet: true,
      DataProcessed: 40,
      MemoryBpsSet: false,
      MemoryBps: 0,
      DataRemainingSet: true,
      DataRemaining: 60,
      MemDirtyRateSet: true,
      MemDirtyRate: 5 * 4096,
    });
    expect(() => goDecode('DomainStats', withJob, 'stats')).not.toThrow();
  });
});

describe('alias map and vCPU affinity from the live XML', () => {
  it('maps tap and disk targets to the VMI names', () => {
    const spec = {
      Devices: {
        Interfaces: [{ Target: { Device: 'tap0' }, Alias: { Name: 'default' } }, { Alias: { Name: 'no-target' } }],
        Disks: [{ Target: { Device: 'vda' }, Alias: { Name: 'containerdisk' } }],
      },
    };
    expect(deviceAliasMap(spec)).toEqual({ tap0: 'default', vda: 'containerdisk' });
  });

  it('gives each online vCPU its pin set, the domain cpuset, or every host CPU', () => {
    expect(parseCpuSet('0-3,^2,6', 8)).toEqual([true, true, false, true, false, false, true, false]);
    expect(() => parseCpuSet('all', 4)).toThrow(CpuSetError);
    const spec = { VCPU: { CPUs: 4 }, CPUTune: { VCPUPin: [{ VCPU: 1, CPUSet: '2' }] } };
    expect(vcpuPinMap(spec, { current: '2' }, 3)).toEqual([
      [true, true, true],
      [false, false, true],
    ]);
    expect(vcpuPinMap({ VCPU: { CPUs: 1 } }, { cpuset: '1' }, 2)).toEqual([[false, true]]);
  });
});

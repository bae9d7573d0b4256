// Realtime vCPUs, guest NUMA passthrough and SEV launch security, converted whole (defaults included)
// and checked against libvirt 9.0's own schema with virt-xml-validate.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { convert } from '../builder.js';
import { ConversionError } from '../errors.js';
import { ConverterContext } from '../gen/virtlauncher/converter/v1/converter.js';
import { vmiJson } from '../testing/fixture.js';
import { parseVmi } from '../vmi/parse.js';
import { toDomainXml } from '../xml/domain-xml.js';
import { realtimeVcpus } from './realtime.js';

const work = mkdtempSync(join(tmpdir(), 'vlt-converter-placement-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Two host nodes: CPUs 0-3 on node 0, 4-7 on node 1, distance 10 within and 20 across. */
const HOST_NUMA = [
  { id: 0, cpus: [0, 1, 2, 3], distances: { 0: 10, 1: 20 }, cpuSiblings: [] },
  { id: 1, cpus: [4, 5, 6, 7], distances: { 0: 20, 1: 10 }, cpuSiblings: [] },
];

function xmlOf(domain: Record<string, unknown>, ctx: Partial<ConverterContext> = {}): string {
  const full = ConverterContext.fromPartial({
    architecture: 'amd64',
    allowEmulation: true,
    hotplugPorts: false,
    ...ctx,
  });
  return toDomainXml(convert(parseVmi(vmiJson('rt', domain)), full));
}

function refusal(domain: Record<string, unknown>, ctx: Partial<ConverterContext> = {}): ConversionError {
  try {
    xmlOf(domain, ctx);
  } catch (e) {
    if (e instanceof ConversionError) return e;
    throw e;
  }
  throw new Error('converted without a refusal');
}

async function expectValid(name: string, xml: string): Promise<void> {
  const path = join(work, `${name}.xml`);
  writeFileSync(path, xml);
  const r = await execa('virt-xml-validate', [path, 'domain'], { reject: false });
  expect(r.stdout + r.stderr).toContain('validates');
}

const realtimeVmi = {
  cpu: {
    cores: 4,
    dedicatedCpuPlacement: true,
    realtime: { mask: '0-3,^1' },
    numa: { guestMappingPassthrough: {} },
  },
  memory: { hugepages: { pageSize: '2Mi' } },
};

describe('realtime vCPUs', () => {
  it('the mask selects vCPUs as KubeVirt parses it (a ^N always wins, empty means all)', () => {
    expect(realtimeVcpus(undefined, 3)).toEqual([0, 1, 2]);
    expect(realtimeVcpus('0-3,^1', 4)).toEqual([0, 2, 3]);
    expect(realtimeVcpus('^2,2', 4)).toEqual([]);
    expect(realtimeVcpus('1, 3', 4)).toEqual([1, 3]);
    expect(() => realtimeVcpus('3-1', 4)).toThrow(/runs backwards/);
    expect(() => realtimeVcpus('x', 4)).toThrow(ConversionError);
  });

  it('fifo priority 1 on the masked vCPUs, PMU off, no shared pages, all schema-valid', async () => {
    const xml = xmlOf(realtimeVmi, { cpuSet: [2, 3, 4, 5], hostNumaNodes: HOST_NUMA });
    expect(xml).toContain(`<vcpusched vcpus="0,2,3" scheduler="fifo" priority="1"/>`);
    expect(xml).toContain(`<pmu state="off"/>`);
    expect(xml).toContain('<nosharepages/>');
    await expectValid('realtime', xml);
  });

  it('realtime without dedicated CPUs or without NUMA passthrough is refused as admission does', () => {
    const noPin = { ...realtimeVmi, cpu: { ...realtimeVmi.cpu, dedicatedCpuPlacement: false } };
    expect(refusal(noPin, { hostNumaNodes: HOST_NUMA }).field).toBe('spec.domain.cpu.dedicatedCpuPlacement');
    const noNuma = { ...realtimeVmi, cpu: { ...realtimeVmi.cpu, numa: undefined } };
    expect(refusal(noNuma, { cpuSet: [0, 1, 2, 3] }).field).toBe('spec.domain.cpu.numa.guestMappingPassthrough');
  });
});

describe('guest NUMA passthrough', () => {
  const numaVmi = {
    cpu: { cores: 4, dedicatedCpuPlacement: true, numa: { guestMappingPassthrough: {} } },
    memory: { hugepages: { pageSize: '2Mi' }, guest: '70Mi' },
  };

  it('one guest cell per host node of the pinned CPUs, strict memnodes, hugepages per cell', async () => {
    const xml = xmlOf(numaVmi, { cpuSet: [2, 3, 4, 5], hostNumaNodes: HOST_NUMA });
    // 70Mi = 35 pages of 2Mi over 2 cells: 18 pages on the first, 17 on the second.
    expect(xml).toContain(`<cell id="0" cpus="0,1" memory="36864" unit="KiB">`);
    expect(xml).toContain(`<cell id="1" cpus="2,3" memory="34816" unit="KiB">`);
    expect(xml).toContain(`<sibling id="0" value="20"/>`);
    expect(xml).toContain(`<memory mode="strict" nodeset="0,1"/>`);
    expect(xml).toContain(`<memnode cellid="1" mode="strict" nodeset="1"/>`);
    expect(xml).toContain(`<page size="2097152" unit="b" nodeset="1"/>`);
    expect(xml).toContain(`<allocation mode="immediate"/>`);
    expect(xml).not.toContain('<vcpusched');
    await expectValid('numa', xml);
  });

  it('CPUs all on one node give one cell with all the memory', () => {
    const xml = xmlOf(numaVmi, { cpuSet: [4, 5, 6, 7], hostNumaNodes: HOST_NUMA });
    expect(xml).toContain(`<cell id="0" cpus="0,1,2,3" memory="71680" unit="KiB">`);
    expect(xml).toContain(`<sibling id="0" value="10"/>`);
    expect(xml).toContain(`<memory mode="strict" nodeset="1"/>`);
  });

  it('refuses without host topology, without hugepages, or with a CPU outside every node', () => {
    expect(refusal(numaVmi, { cpuSet: [2, 3, 4, 5] }).field).toBe('context.hostNumaNodes');
    const noPages = { ...numaVmi, memory: { guest: '70Mi' } };
    expect(refusal(noPages, { cpuSet: [2, 3, 4, 5], hostNumaNodes: HOST_NUMA }).field).toBe(
      'spec.domain.memory.hugepages.pageSize',
    );
    const e = refusal(numaVmi, { cpuSet: [2, 3, 4, 9], hostNumaNodes: HOST_NUMA });
    expect(e.field).toBe('context.hostNumaNodes');
    expect(e.value).toBe('9');
  });
});

describe('launch security', () => {
  it('SEV: policy 0x1 (no debug), devices behind the IOMMU; schema-valid', async () => {
    const xml = xmlOf({ launchSecurity: { sev: {} } });
    expect(xml).toMatch(/<launchSecurity type="sev">\s*<policy>0x1<\/policy>\s*<\/launchSecurity>/);
    expect(xml).toContain('iommu="on"');
    await expectValid('sev', xml);
  });

  it('SEV-ES sets policy bit 2; the certificate, session and host SEV facts pass through', async () => {
    const sev = { policy: { encryptedState: true }, dhCert: 'Y2VydA==', session: 'c2Vzcw==' };
    const xml = xmlOf({ launchSecurity: { sev } }, { sev: { cbitpos: 47, reducedPhysBits: 1 } });
    expect(xml).toContain('<policy>0x5</policy>');
    expect(xml).toContain('<cbitpos>47</cbitpos>');
    expect(xml).toContain('<reducedPhysBits>1</reducedPhysBits>');
    expect(xml).toContain('<dhCert>Y2VydA==</dhCert>');
    expect(xml).toContain('<session>c2Vzcw==</session>');
    await expectValid('sev-es', xml);
  });

  it('SEV-SNP and TDX are refused naming libvirt 9.0; SEV on s390x is refused too', () => {
    expect(refusal({ launchSecurity: { snp: {} } }).message).toMatch(/SEV-SNP: .*libvirt .*9\.0/);
    expect(refusal({ launchSecurity: { tdx: {} } }).field).toBe('spec.domain.launchSecurity.tdx');
    expect(refusal({ launchSecurity: { sev: {} } }, { architecture: 's390x' }).value).toBe('s390x');
  });

  it('s390 PV (context flag): no <launchSecurity>, every virtio device behind the IOMMU; schema-valid', async () => {
    const xml = xmlOf({}, { useLaunchSecurityPv: true });
    expect(xml).not.toContain('<launchSecurity');
    expect(xml).toContain('iommu="on"');
    await expectValid('pv', xml);
  });
});

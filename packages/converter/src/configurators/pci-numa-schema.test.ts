// The PCI NUMA vectors' whole domains against libvirt 9.0's own schema (virt-xml-validate): the expander
// buses with <target busNr><node>, their root ports with decimal bus addresses and the devices behind them,
// with the hot-plug ports the launcher adds, for KubeVirt's gate-on case and for two host nodes.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { convert } from '../builder.js';
import { ConverterContext } from '../gen/virtlauncher/converter/v1/converter.js';
import { goldenJson, readGolden } from '../testing/golden.js';
import { parseVmi } from '../vmi/parse.js';
import { toDomainXml } from '../xml/domain-xml.js';

const work = mkdtempSync(join(tmpdir(), 'vlt-converter-pcinuma-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

async function validation(name: string, xml: string): Promise<string> {
  const path = join(work, `${name}.xml`);
  writeFileSync(path, xml);
  const r = await execa('virt-xml-validate', [path, 'domain'], { reject: false });
  return r.stdout + r.stderr;
}

function gateOnDomain(change: (ctx: ConverterContext) => ConverterContext = (ctx) => ctx): string {
  const ctx = change(ConverterContext.fromJSON(goldenJson('conv-pcie-numa-gate-on', 'context.json')));
  const vmi = parseVmi(readGolden('conv-pcie-numa-gate-on', 'vmi.json'), { architecture: ctx.architecture });
  return toDomainXml(convert(vmi, { ...ctx, libvirtVersion: '9.0.0', hotplugPorts: true }));
}

describe('PCI NUMA placement against libvirt 9.0’s schema', () => {
  it('KubeVirt’s gate-on case (one expander bus, four root ports) validates', async () => {
    const xml = gateOnDomain();
    expect(xml).toContain('model="pcie-expander-bus"');
    expect(await validation('gate-on', xml)).toContain('validates');
  });

  it('two host nodes mapped to two guest cells (two expander buses) validate', async () => {
    const xml = gateOnDomain((ctx) => ({
      ...ctx,
      cpuSet: [0, 4],
      hostNumaNodes: [
        { id: 0, cpus: [0, 1], distances: { 0: 10, 1: 20 }, cpuSiblings: [] },
        { id: 1, cpus: [4, 5], distances: { 0: 20, 1: 10 }, cpuSiblings: [] },
      ],
      gpuHostDevices: ctx.gpuHostDevices.map((d) => ({ ...d, numaNode: 1 })),
    }));
    expect([...xml.matchAll(/<node>(\d)<\/node>/g)].map((m) => m[1])).toEqual(['0', '1']);
    expect(await validation('two-cells', xml)).toContain('validates');
  });
});

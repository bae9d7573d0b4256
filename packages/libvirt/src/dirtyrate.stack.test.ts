// Dirty-rate measurement on a real libvirtd running a TCG guest (no KVM): which calculation modes QEMU 7.2
// offers there, and the `dirtyrate` stats group that carries the result.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { LibvirtError, StatsTypes, connect } from './index.js';
import type { Connection, DirtyRateMode, Domain, DomainStats } from './index.js';
import { startPrivateDaemon } from './private-daemon.js';
import type { PrivateDaemon } from './private-daemon.js';
import { tcgDomainXml, uniqueName } from './test-helpers.js';

async function measured(dom: Domain, ms = 20_000): Promise<DomainStats['stats']> {
  const until = Date.now() + ms;
  for (;;) {
    const { stats } = await dom.getStats({ types: StatsTypes.DIRTYRATE });
    if (stats['dirtyrate.calc_status'] === 2 || Date.now() > until) return stats;
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('startDirtyRateCalc on a TCG guest', () => {
  let daemon: PrivateDaemon;
  let conn: Connection;
  let dom: Domain;
  const name = uniqueName('vlt-libvirt-dirty');

  beforeAll(async () => {
    daemon = await startPrivateDaemon('vlt-libvirt');
    conn = await connect(daemon.uri);
    dom = await conn.defineXML(tcgDomainXml(name));
    await dom.create();
  }, 180_000);

  afterAll(async () => {
    await dom?.destroy().catch(() => undefined);
    await dom?.undefine().catch(() => undefined);
    await conn?.close().catch(() => undefined);
    await daemon?.stop();
  }, 60_000);

  it('page sampling measures, and the dirtyrate group reports it', async () => {
    await dom.startDirtyRateCalc(1, 'page-sampling');
    const stats = await measured(dom);
    expect(stats['dirtyrate.calc_status']).toBe(2);
    expect(stats['dirtyrate.calc_mode']).toBe('page-sampling');
    expect(stats['dirtyrate.calc_period']).toBe(1);
    expect(typeof stats['dirtyrate.megabytes_per_second']).toBe('number');
  }, 60_000);

  it('dirty-ring is refused under TCG with a typed error', async () => {
    const err = await dom.startDirtyRateCalc(1, 'dirty-ring').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LibvirtError);
    expect((err as LibvirtError).codeName).toBe('OPERATION_UNSUPPORTED');
    expect((err as LibvirtError).message).toContain('dirty-ring');
  }, 60_000);

  it('an unknown mode is refused before libvirt is asked', async () => {
    const err = await dom.startDirtyRateCalc(1, 'sideways' as DirtyRateMode).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LibvirtError);
    expect((err as LibvirtError).codeName).toBe('INVALID_ARG');
    expect((err as LibvirtError).message).toContain('"sideways"');
  });

  it('a period libvirt refuses comes back as its typed error', async () => {
    const err = await dom.startDirtyRateCalc(0).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LibvirtError);
    expect((err as LibvirtError).message).toMatch(/seconds/);
  }, 60_000);
});

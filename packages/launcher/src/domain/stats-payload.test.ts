// GetDomainStats' payload against libvirt's in-process test driver: the real binding, the real call flags.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectLibvirt } from '../adapters/libvirt.js';
import type { Connection } from '../adapters/libvirt.js';
import { goDecode } from '../testing/go-decode.js';
import { EmptyDomainStatsError, domainStatsPayload } from './stats-payload.js';

type AnyJson = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('domainStatsPayload with test:///default', () => {
  let conn: Connection;

  beforeAll(async () => {
    conn = await connectLibvirt('test:///default');
  });
  afterAll(async () => {
    await conn?.close();
  });

  it('answers stats.DomainStats for the running domain, with a CPU map row per online vCPU', async () => {
    const json = goDecode('DomainStats', await domainStatsPayload(conn, 'test'), 'stats') as AnyJson;
    expect(json.Name).toBe('test');
    const xml = await (await conn.lookupDomainByName('test')).getXMLDesc();
    const vcpus = Number(/<vcpu[^>]*>(\d+)<\/vcpu>/.exec(xml)?.[1]);
    expect(json.CPUMapSet).toBe(true);
    expect(json.CPUMap).toHaveLength(vcpus);
    expect(json.DirtyRate).not.toBeNull();
  });

  it("answers KubeVirt's error when no running or paused domain has stats", async () => {
    const dom = await conn.lookupDomainByName('test');
    await dom.destroy();
    try {
      await expect(domainStatsPayload(conn, 'test')).rejects.toThrow(EmptyDomainStatsError);
      await expect(domainStatsPayload(conn, 'test')).rejects.toThrow('empty DomainStats');
    } finally {
      await dom.create();
    }
  });
});

// SyncVirtualMachineCPUs and SyncVirtualMachineMemory: read the VMI, find its running domain, change it.
import type { Connection } from '../../../adapters/libvirt.js';
import { parseVmiRequest } from '../../../vmi.js';
import { syncCpus } from './cpus.js';
import { syncMemory } from './memory.js';
import { asRuntimeDomain } from './types.js';

interface VmiDoc {
  spec?: {
    domain?: {
      cpu?: { sockets?: number; cores?: number; threads?: number; maxSockets?: number };
      memory?: { guest?: string; maxGuest?: string };
    };
  };
  status?: { memory?: { guestAtBoot?: string } };
}

async function open(conn: Connection, vmiJson: Buffer | undefined) {
  const vmi = parseVmiRequest(vmiJson);
  const doc = JSON.parse(vmi.raw.toString('utf8')) as VmiDoc;
  const dom = asRuntimeDomain(await conn.lookupDomainByName(vmi.domainName));
  return { vmi, doc, dom };
}

export async function syncCpusRequest(conn: Connection, vmiJson: Buffer | undefined): Promise<void> {
  const { doc, dom } = await open(conn, vmiJson);
  await syncCpus(dom, doc.spec?.domain?.cpu);
}

export async function syncMemoryRequest(conn: Connection, vmiJson: Buffer | undefined): Promise<void> {
  const { doc, dom } = await open(conn, vmiJson);
  const memory = doc.spec?.domain?.memory;
  await syncMemory(dom, {
    guest: memory?.guest,
    maxGuest: memory?.maxGuest,
    guestAtBoot: doc.status?.memory?.guestAtBoot,
  });
}

// The VMI a `sync` sends: read from YAML or JSON, sent as the JSON virt-handler would send, with the options
// the handler computes for it (interface attachment, balloon period).
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
import { cmdV1 } from '@virt-launcher/launcher';
import { UsageError } from './errors.js';

type Json = Record<string, unknown>;

export interface LoadedVmi {
  vmi: Json;
  name: string;
  namespace: string;
  uid: string;
  /** metadata.uid was absent (a file never seen by an API server) and was derived from namespace/name. */
  uidDerived: boolean;
}

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A stable stand-in for the uid an API server would assign: the same file always gets the same uid, so a
 * second sync is seen by the launcher as the same VMI.
 */
export function derivedUid(namespace: string, name: string): string {
  const h = createHash('sha256').update(`kubevirt.io/v1/VirtualMachineInstance/${namespace}/${name}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

export function parseVmiText(text: string, source: string): LoadedVmi {
  let doc: unknown;
  try {
    // YAML is a superset of JSON: one parser reads both.
    doc = parseYaml(text);
  } catch (err) {
    throw new UsageError(`${source}: not YAML or JSON: ${(err as Error).message.split('\n')[0]}`);
  }
  if (!isObject(doc)) throw new UsageError(`${source}: expected one VirtualMachineInstance object`);
  if (doc.kind !== undefined && doc.kind !== 'VirtualMachineInstance') {
    throw new UsageError(`${source}: kind is ${String(doc.kind)}, expected VirtualMachineInstance`);
  }
  const meta = isObject(doc.metadata) ? { ...doc.metadata } : {};
  if (typeof meta.name !== 'string' || meta.name === '') throw new UsageError(`${source}: metadata.name is missing`);
  if (!isObject(doc.spec)) throw new UsageError(`${source}: spec is missing`);
  const namespace = typeof meta.namespace === 'string' && meta.namespace !== '' ? meta.namespace : 'default';
  const uidDerived = typeof meta.uid !== 'string' || meta.uid === '';
  const uid = uidDerived ? derivedUid(namespace, meta.name) : (meta.uid as string);
  const vmi: Json = {
    apiVersion: doc.apiVersion ?? 'kubevirt.io/v1',
    kind: 'VirtualMachineInstance',
    ...doc,
    metadata: { ...meta, namespace, uid },
  };
  return { vmi, name: meta.name, namespace, uid, uidDerived };
}

export async function loadVmiFile(path: string): Promise<LoadedVmi> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  return parseVmiText(text, path);
}

/** Interfaces whose binding puts a tap device in the domain: masquerade and bridge (as virt-handler decides). */
export function interfaceDomainAttachment(vmi: Json): Record<string, string> {
  const spec = isObject(vmi.spec) ? vmi.spec : {};
  const domain = isObject(spec.domain) ? spec.domain : {};
  const devices = isObject(domain.devices) ? domain.devices : {};
  const ifaces = Array.isArray(devices.interfaces) ? devices.interfaces : [];
  const out: Record<string, string> = {};
  for (const iface of ifaces) {
    if (!isObject(iface) || typeof iface.name !== 'string') continue;
    if (iface.masquerade !== undefined || iface.bridge !== undefined) out[iface.name] = 'tap';
  }
  return out;
}

/** The options of a SyncVirtualMachine request for this VMI. */
export function syncOptions(vmi: Json): cmdV1.VirtualMachineOptions {
  return cmdV1.VirtualMachineOptions.fromPartial({
    MemBalloonStatsPeriod: 10,
    interfaceDomainAttachment: interfaceDomainAttachment(vmi),
  });
}

export function vmiRequest(vmi: Json, options?: cmdV1.VirtualMachineOptions): cmdV1.VMIRequest {
  return cmdV1.VMIRequest.fromPartial({
    vmi: { vmiJson: Buffer.from(JSON.stringify(vmi)) },
    options,
  });
}

/**
 * For pause/unpause/shutdown/kill/delete without a file: the launcher only needs to know which VMI (name,
 * namespace, uid), which the running domain's ObjectMeta tells.
 */
export function vmiFromDomain(domain: Json): Json | undefined {
  const meta = isObject(domain.ObjectMeta)
    ? domain.ObjectMeta
    : isObject(domain.metadata)
      ? domain.metadata
      : undefined;
  if (!meta || typeof meta.name !== 'string') return undefined;
  return {
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachineInstance',
    metadata: { name: meta.name, namespace: meta.namespace ?? 'default', uid: meta.uid ?? '' },
    spec: { domain: { devices: {} } },
  };
}

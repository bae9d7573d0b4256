// KubeVirt writes `kind`, `name`, `namespace` and `uid` on every line about a VMI, so one VMI's story can be
// filtered out of a node's logs. The cmd RPCs carry the VMI as JSON; these are the keys read from it.
import type { LogFields } from '../log.js';

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/**
 * The per-VMI log fields of a cmd request (`{ vmi: { vmiJson } }`). Never throws: a request too malformed to
 * parse still gets its log line, only without these keys.
 */
export function vmiLogFields(request: unknown): LogFields {
  const json = (request as { vmi?: { vmiJson?: unknown } } | undefined)?.vmi?.vmiJson;
  if (!(json instanceof Uint8Array) || json.length === 0) return {};
  let metadata: Record<string, unknown>;
  try {
    const doc = JSON.parse(Buffer.from(json).toString('utf8')) as { metadata?: unknown };
    metadata = (doc.metadata && typeof doc.metadata === 'object' ? doc.metadata : {}) as Record<string, unknown>;
  } catch {
    return {};
  }
  const fields: LogFields = { kind: 'VirtualMachineInstance' };
  for (const key of ['name', 'namespace', 'uid'] as const) {
    const value = text(metadata[key]);
    if (value !== undefined) fields[key] = value;
  }
  return fields;
}

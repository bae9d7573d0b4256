// The device metadata file a DRA driver leaves in the pod for one claim request (Kubernetes KEP-5304). The file
// is a stream of JSON objects, the same data once per API version, newest first: the first object of a version
// this launcher knows is used and newer ones are skipped, so a driver upgrade does not break an older launcher,
// as KubeVirt reads it. Anything else malformed in the stream fails: a device is never guessed.

/** The one API version of the metadata this launcher understands. */
export const DRA_METADATA_API_VERSION = 'metadata.resource.k8s.io/v1alpha1';

/** The attribute naming a device's PCI address (passthrough). */
export const PCI_BUS_ID_ATTRIBUTE = 'resource.kubernetes.io/pciBusID';
/** The attribute naming a mediated device's UUID (vGPU); not standardised by Kubernetes yet. */
export const MDEV_UUID_ATTRIBUTE = 'mdevUUID';

/** One allocated device: only its string attributes matter here (a device attribute holds one typed value). */
export interface DraDevice {
  attributes: Record<string, { string?: unknown }>;
}

export interface DraRequest {
  name: string;
  devices: DraDevice[];
}

export interface DraMetadata {
  /** The claim's name as the driver wrote it. */
  name: string;
  requests: DraRequest[];
}

/** The end of the JSON text starting at `start`: a whole object or array, a string, or a bare literal. */
function endOfText(text: string, start: number): number {
  const first = text[start];
  let i = start;
  if (first === '"') {
    for (i++; i < text.length; i++) {
      if (text[i] === '\\') i++;
      else if (text[i] === '"') return i + 1;
    }
    return i;
  }
  if (first !== '{' && first !== '[') {
    while (i < text.length && !/[\s{["]/.test(text[i] ?? '')) i++;
    return i;
  }
  let depth = 0;
  let inString = false;
  for (; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth++;
    else if ((c === '}' || c === ']') && --depth === 0) return i + 1;
  }
  return i;
}

/** The stream's top-level JSON texts (Go's decoder takes them back to back, with or without whitespace). */
function* topLevelTexts(text: string): Generator<string> {
  let i = 0;
  for (;;) {
    while (i < text.length && /\s/.test(text[i] ?? '')) i++;
    if (i >= text.length) return;
    const end = endOfText(text, i);
    yield text.slice(i, end);
    i = end;
  }
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The fields this launcher reads, held to their JSON types; `null` lists count as absent, as in Go. */
function metadataOf(doc: Obj): DraMetadata {
  const meta = doc['metadata'] ?? {};
  const requests = doc['requests'] ?? [];
  if (!isObj(meta) || !Array.isArray(requests)) throw new Error('metadata or requests has the wrong type');
  return {
    name: typeof meta['name'] === 'string' ? meta['name'] : '',
    requests: requests.map((r, i) => {
      const devices = isObj(r) ? (r['devices'] ?? []) : undefined;
      if (!isObj(r) || typeof r['name'] !== 'string' || !Array.isArray(devices)) {
        throw new Error(`requests[${i}] is not a request with a name and a device list`);
      }
      return {
        name: r['name'],
        devices: devices.map((d, j) => {
          const attributes = isObj(d) ? (d['attributes'] ?? {}) : undefined;
          if (!isObj(attributes)) throw new Error(`requests[${i}].devices[${j}] has no attribute map`);
          return { attributes: attributes as DraDevice['attributes'] };
        }),
      };
    }),
  };
}

/** Parses a metadata file's text; throws an Error saying what is wrong with the stream. */
export function parseDraMetadata(text: string): DraMetadata {
  const unknown: string[] = [];
  for (const json of topLevelTexts(text)) {
    const doc: unknown = JSON.parse(json);
    if (!isObj(doc)) throw new Error(`an entry of the stream is not an object: ${json.slice(0, 40)}`);
    const version = doc['apiVersion'];
    if (version === undefined || version === null || version === '') throw new Error('an entry has no apiVersion');
    if (typeof version !== 'string')
      throw new Error(`an entry's apiVersion is not a string: ${JSON.stringify(version)}`);
    if (version !== DRA_METADATA_API_VERSION) {
      unknown.push(version);
      continue;
    }
    return metadataOf(doc);
  }
  if (unknown.length === 0) throw new Error('the stream holds no metadata object');
  throw new Error(`no entry of a known apiVersion (${DRA_METADATA_API_VERSION}); found ${unknown.join(', ')}`);
}

/** A device's non-empty string attribute, else undefined. */
export function stringAttribute(device: DraDevice, name: string): string | undefined {
  const value = device.attributes[name]?.string;
  return typeof value === 'string' && value !== '' ? value : undefined;
}

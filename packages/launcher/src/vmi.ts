// The launcher's own view of a VirtualMachineInstance: only the fields it acts on, validated up front so a
// malformed or hostile request fails with a message naming the problem before anything touches the disk.
import { InvalidRequestError } from './errors.js';

export interface VolumeView {
  name: string;
  containerDisk?: { image?: string; path?: string };
  emptyDisk?: { capacity?: string };
  hostDisk?: { path?: string; type?: string; capacity?: string; shared?: boolean };
  cloudInitNoCloud?: Record<string, unknown>;
  cloudInitConfigDrive?: Record<string, unknown>;
  configMap?: { name?: string };
  secret?: { secretName?: string };
  downwardAPI?: Record<string, unknown>;
  serviceAccount?: { serviceAccountName?: string };
  persistentVolumeClaim?: { claimName?: string };
  ephemeral?: Record<string, unknown>;
  dataVolume?: { name?: string };
}

export interface InterfaceView {
  name: string;
  masquerade?: object;
  bridge?: object;
  macAddress?: string;
}

export interface VmiView {
  name: string;
  namespace: string;
  uid: string;
  domainName: string;
  annotations: Record<string, string>;
  volumes: VolumeView[];
  interfaces: InterfaceView[];
  networks: Array<{ name: string; pod?: object; multus?: object }>;
  startStrategy?: string;
  terminationGracePeriodSeconds: number;
  subdomain?: string;
  hostname?: string;
  phase: string;
  /** The request's JSON, untouched, for the converter. */
  raw: Buffer;
}

const label = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const subdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function checkName(kind: string, value: unknown, pattern: RegExp, max: number): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > max || !pattern.test(value)) {
    throw new InvalidRequestError(`invalid ${kind} ${JSON.stringify(value)}: must be a DNS-1123 name`, kind);
  }
  return value;
}

/** The UID names a directory (kubevirt-private/<uid>): only UUID characters are allowed. */
function checkUid(value: unknown): string {
  if (value === undefined) return '';
  if (typeof value !== 'string' || !/^[A-Za-z0-9-]{0,128}$/.test(value)) {
    throw new InvalidRequestError(`invalid metadata.uid ${JSON.stringify(value)}`, 'metadata.uid');
  }
  return value;
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const arr = (v: unknown): Obj[] => (Array.isArray(v) ? v.map(obj) : []);

export const NO_VALID_VMI = 'No valid vmi object present in command server request';

export function parseVmiRequest(vmiJson: Buffer | undefined): VmiView {
  if (!vmiJson || vmiJson.length === 0) throw new InvalidRequestError(NO_VALID_VMI);
  let doc: Obj;
  try {
    doc = obj(JSON.parse(vmiJson.toString('utf8')));
  } catch {
    throw new InvalidRequestError(NO_VALID_VMI);
  }
  const meta = obj(doc.metadata);
  const spec = obj(doc.spec);
  const devices = obj(obj(spec.domain).devices);
  const name = checkName('metadata.name', meta.name, subdomain, 253);
  const namespace = checkName('metadata.namespace', meta.namespace ?? 'default', label, 63);
  const volumes = arr(spec.volumes).map((v) => ({
    ...(v as unknown as VolumeView),
    name: checkName('volume name', v.name, label, 63),
  }));
  const interfaces = arr(devices.interfaces).map((i) => ({
    ...(i as unknown as InterfaceView),
    name: checkName('interface name', i.name, label, 63),
  }));
  const grace = spec.terminationGracePeriodSeconds;
  return {
    name,
    namespace,
    uid: checkUid(meta.uid),
    domainName: `${namespace}_${name}`,
    annotations: obj(meta.annotations) as Record<string, string>,
    volumes,
    interfaces,
    networks: arr(spec.networks) as unknown as VmiView['networks'],
    startStrategy: typeof spec.startStrategy === 'string' ? spec.startStrategy : undefined,
    terminationGracePeriodSeconds: typeof grace === 'number' ? grace : 30,
    subdomain: typeof spec.subdomain === 'string' ? spec.subdomain : undefined,
    hostname: typeof spec.hostname === 'string' ? spec.hostname : undefined,
    phase: typeof obj(doc.status).phase === 'string' ? (obj(doc.status).phase as string) : '',
    raw: vmiJson,
  };
}

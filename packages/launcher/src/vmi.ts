// The launcher's own view of a VirtualMachineInstance: only the fields it acts on, validated up front so a
// malformed or hostile request fails with a message naming the problem before anything touches the disk.
import { isDns1123Label, isDns1123Subdomain } from '@virt-launcher/shared';
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
  sriov?: object;
  macAddress?: string;
  /** spec.domain.devices.interfaces[].state as sent: checked by interfaceStateProblems, not at parse time. */
  state?: unknown;
}

export interface NetworkView {
  name: string;
  pod?: object;
  multus?: { default?: boolean; networkName?: string };
}

export interface VmiView {
  name: string;
  namespace: string;
  uid: string;
  domainName: string;
  annotations: Record<string, string>;
  volumes: VolumeView[];
  interfaces: InterfaceView[];
  networks: NetworkView[];
  startStrategy?: string;
  /** spec.architecture (GOARCH spelling) when set: another than the host's needs cross-architecture emulation. */
  architecture?: string;
  terminationGracePeriodSeconds: number;
  subdomain?: string;
  hostname?: string;
  phase: string;
  /** The request's JSON, untouched, for the converter. */
  raw: Buffer;
}

// KubeVirt's admission rules, checked again here because these names become paths (overlays, empty disks,
// config ISOs) before the converter runs: disks are DNS-1123 labels and every volume matches a disk (or a
// filesystem), so volumes are too; interfaces are letters, digits, '-' and '_', and every network matches
// an interface. Object names follow Kubernetes: the VMI a DNS-1123 subdomain, its namespace a label.
interface NameRule {
  test: (name: string) => boolean;
  what: string;
}

const LABEL: NameRule = { test: isDns1123Label, what: 'a DNS-1123 label' };
const SUBDOMAIN: NameRule = { test: isDns1123Subdomain, what: 'a DNS-1123 subdomain' };
const INTERFACE: NameRule = {
  test: (name) => /^[A-Za-z0-9_-]+$/.test(name),
  what: "a valid interface name (letters, digits, '-', '_')",
};

/** JSON quoting, plus the line separators JSON leaves raw: a value never breaks the log line it is in. */
function quoted(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.replace(/[\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16)}`);
}

function checkName(field: string, value: unknown, rule: NameRule): string {
  if (typeof value !== 'string' || !rule.test(value)) {
    throw new InvalidRequestError(`${field}: ${quoted(value)} is not ${rule.what}`, field);
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
  const name = checkName('metadata.name', meta.name, SUBDOMAIN);
  const namespace = checkName('metadata.namespace', meta.namespace ?? 'default', LABEL);
  arr(devices.disks).forEach((d, i) => checkName(`spec.domain.devices.disks[${i}].name`, d.name, LABEL));
  const volumes = arr(spec.volumes).map((v, i) => ({
    ...(v as unknown as VolumeView),
    name: checkName(`spec.volumes[${i}].name`, v.name, LABEL),
  }));
  const interfaces = arr(devices.interfaces).map((iface, i) => ({
    ...(iface as unknown as InterfaceView),
    name: checkName(`spec.domain.devices.interfaces[${i}].name`, iface.name, INTERFACE),
  }));
  const networks = arr(spec.networks).map((n, i) => ({
    ...(n as unknown as NetworkView),
    name: checkName(`spec.networks[${i}].name`, n.name, INTERFACE),
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
    networks,
    startStrategy: typeof spec.startStrategy === 'string' ? spec.startStrategy : undefined,
    architecture: typeof spec.architecture === 'string' && spec.architecture ? spec.architecture : undefined,
    terminationGracePeriodSeconds: typeof grace === 'number' ? grace : 30,
    subdomain: typeof spec.subdomain === 'string' ? spec.subdomain : undefined,
    hostname: typeof spec.hostname === 'string' ? spec.hostname : undefined,
    phase: typeof obj(doc.status).phase === 'string' ? (obj(doc.status).phase as string) : '',
    raw: vmiJson,
  };
}

/** The interface states KubeVirt's API knows (v1.InterfaceState); empty means the default, up. */
const INTERFACE_STATES = ['', 'up', 'down', 'absent'];

/** The pod's default network: the pod network, or a Multus network marked default (KubeVirt's LookUpDefaultNetwork). */
function defaultNetworkName(networks: NetworkView[]): string | undefined {
  return networks.find((n) => n.pod !== undefined || n.multus?.default === true)?.name;
}

/**
 * KubeVirt's admission rules for interface states (pkg/network/admitter/admit.go, validateInterfaceStateValue),
 * checked again because the launcher acts on them: an unknown value, link states on SR-IOV, and `absent` (unplug)
 * anywhere but on a bridge-bound secondary NIC. Unplugging the default network's NIC leaves the guest with no pod
 * network, and only a bridge NIC's tap can be taken away without breaking the binding. Throws one
 * InvalidRequestError naming every offending field (its `field`: the first one).
 */
export function checkInterfaceStates(vmi: Pick<VmiView, 'interfaces' | 'networks'>): void {
  const problems: Array<{ field: string; text: string }> = [];
  const defaultNetwork = defaultNetworkName(vmi.networks);
  vmi.interfaces.forEach((iface, i) => {
    const field = `spec.domain.devices.interfaces[${i}].state`;
    const state = iface.state ?? '';
    const refuse = (why: string) => problems.push({ field, text: `${field}: ${quoted(state)} ${why}` });
    if (typeof state !== 'string' || !INTERFACE_STATES.includes(state)) {
      refuse(`is not an interface state of ${quoted(iface.name)} (known: "up", "down", "absent" or empty)`);
      return;
    }
    if (iface.sriov !== undefined && (state === 'up' || state === 'down')) {
      refuse(`is not supported on the SR-IOV interface ${quoted(iface.name)}`);
    }
    if (state !== 'absent') return;
    if (iface.bridge === undefined)
      refuse(`is supported only on a bridge-bound interface, not on ${quoted(iface.name)}`);
    if (iface.name === defaultNetwork) {
      refuse(`cannot unplug ${quoted(iface.name)}: it is the interface of the pod's default network`);
    }
  });
  if (problems.length === 0) return;
  throw new InvalidRequestError(problems.map((p) => p.text).join('; '), problems[0]!.field);
}

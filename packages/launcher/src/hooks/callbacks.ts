// Calling the collected hook sidecars (docs/hooks.md): OnDefineDomain rewrites the domain XML before it is
// defined, PreCloudInitIso rewrites the cloud-init data before the ISO is made, Shutdown tells sidecars the
// guest is gone. Each sidecar is called only for the points it registered, in the registry's order, over the
// newest callback version it serves (v1alpha1 has only OnDefineDomain, v1alpha2 adds PreCloudInitIso, v1alpha3
// adds Shutdown). Each call has KubeVirt's one-minute deadline; a failing call fails the operation.
import { CallbacksService as V1 } from '../gen/kubevirt/hooks/v1alpha1/v1alpha1.js';
import { CallbacksService as V2 } from '../gen/kubevirt/hooks/v1alpha2/v1alpha2.js';
import { CallbacksService as V3 } from '../gen/kubevirt/hooks/v1alpha3/v1alpha3.js';
import { callUnary, openChannel } from '../grpc/unary.js';
import type { UnaryMethod } from '../grpc/unary.js';
import { log } from '../log.js';
import { XmlParseError, parseXml } from '../xml/parse.js';
import { HookError } from './collect.js';
import type { HookRegistry, HookSidecar } from './collect.js';

const CALL_TIMEOUT_MS = 60_000;

/**
 * The cloud-init data a PreCloudInitIso hook sees and may change: KubeVirt's CloudInitData, whose Go struct has
 * no json tags, so its keys are the Go field names.
 */
export interface CloudInitData {
  DataSource: 'noCloud' | 'configDrive';
  NoCloudMetaData?: Record<string, unknown> | null;
  ConfigDriveMetaData?: Record<string, unknown> | null;
  UserData: string;
  NetworkData: string;
  VolumeName: string;
}

type OnDefine = UnaryMethod<{ domainXML: Buffer; vmi: Buffer }, { domainXML: Buffer }>;
type PreCloudInit = UnaryMethod<
  { cloudInitNoCloudSource: Buffer; vmi: Buffer; cloudInitData: Buffer },
  { cloudInitNoCloudSource: Buffer; cloudInitData: Buffer }
>;

const onDefineByVersion: Record<string, OnDefine> = {
  v1alpha1: V1.onDefineDomain,
  v1alpha2: V2.onDefineDomain,
  v1alpha3: V3.onDefineDomain,
};
const preCloudInitByVersion: Record<string, PreCloudInit> = {
  v1alpha2: V2.preCloudInitIso,
  v1alpha3: V3.preCloudInitIso,
};

async function callSidecar<Req, Res>(
  sidecar: HookSidecar,
  what: string,
  method: UnaryMethod<Req, Res>,
  request: Req,
): Promise<Res> {
  const channel = openChannel(sidecar.socketPath);
  try {
    return await callUnary(channel, method, request, CALL_TIMEOUT_MS);
  } catch (err) {
    log.error(`Failed to call ${what}`, { reason: (err as Error).message });
    throw new HookError(`${what} hook of ${sidecar.socketPath} failed: ${(err as Error).message}`, sidecar.socketPath);
  } finally {
    channel.close();
  }
}

/** A hook's domain XML must still be one well-formed <domain>; anything else fails the Sync with this. */
function checkDomainXml(xml: string, sidecar: HookSidecar): void {
  let root;
  try {
    root = parseXml(xml);
  } catch (err) {
    const why = err instanceof XmlParseError ? err.message : String(err);
    throw new HookError(`OnDefineDomain hook of ${sidecar.socketPath} returned invalid domain XML: ${why}`);
  }
  if (root.name !== 'domain') {
    throw new HookError(
      `OnDefineDomain hook of ${sidecar.socketPath} returned invalid domain XML: root element <${root.name}>, not <domain>`,
    );
  }
}

export class HookCallbacks {
  constructor(private readonly registry: HookRegistry) {}

  /** Whether any sidecar registered for a hook point. */
  has(point: string): boolean {
    return (this.registry.get(point)?.length ?? 0) > 0;
  }

  /** Runs every OnDefineDomain hook in order, each on the previous one's output; returns the XML to define. */
  async onDefineDomain(domainXml: string, vmiJson: Buffer): Promise<string> {
    let xml = domainXml;
    for (const sidecar of this.registry.get('OnDefineDomain') ?? []) {
      const method = onDefineByVersion[sidecar.version];
      if (!method) {
        log.error(`Unsupported callback version: ${sidecar.version}`);
        continue;
      }
      const res = await callSidecar(sidecar, 'OnDefineDomain', method, { domainXML: Buffer.from(xml), vmi: vmiJson });
      xml = res.domainXML.toString('utf8');
      checkDomainXml(xml, sidecar);
    }
    return xml;
  }

  /**
   * Runs the PreCloudInitIso hooks. As in KubeVirt, the first sidecar serving v1alpha2 or newer answers for
   * all; its cloudInitData wins when it names a data source, else its legacy no-cloud source gives user and
   * network data. A v1alpha1 sidecar that registered this point is skipped.
   */
  async preCloudInitIso(data: CloudInitData, vmiJson: Buffer): Promise<CloudInitData> {
    for (const sidecar of this.registry.get('PreCloudInitIso') ?? []) {
      const method = preCloudInitByVersion[sidecar.version];
      if (!method) {
        log.error(`Unsupported callback version: ${sidecar.version}`);
        continue;
      }
      const noCloud = JSON.stringify({
        userData: data.UserData || undefined,
        networkData: data.NetworkData || undefined,
      });
      const res = await callSidecar(sidecar, 'PreCloudInitIso', method, {
        cloudInitData: Buffer.from(JSON.stringify(data)),
        cloudInitNoCloudSource: Buffer.from(noCloud),
        vmi: vmiJson,
      });
      return resultData(res, data, sidecar);
    }
    return data;
  }

  /** Tells the v1alpha3 sidecars that registered Shutdown that the guest is gone. */
  async shutdown(): Promise<void> {
    for (const sidecar of this.registry.get('Shutdown') ?? []) {
      if (sidecar.version !== 'v1alpha3') {
        log.error(`Unsupported callback version: ${sidecar.version}`);
        continue;
      }
      await callSidecar(sidecar, 'Shutdown', V3.shutdown, {});
    }
  }
}

function parseJson(bytes: Buffer, what: string, sidecar: HookSidecar): Record<string, unknown> {
  try {
    const value = JSON.parse(bytes.length ? bytes.toString('utf8') : 'null') as unknown;
    return value && typeof value === 'object' ? (value as Record<string, unknown>) : {};
  } catch (err) {
    throw new HookError(
      `PreCloudInitIso hook of ${sidecar.socketPath} returned invalid ${what}: ${(err as Error).message}`,
    );
  }
}

/**
 * KubeVirt keeps the hook's CloudInitData when it is valid (user data and either metadata set); otherwise it
 * reads user and network data from the legacy no-cloud source, keeping the data source it asked with.
 */
function resultData(
  res: { cloudInitData: Buffer; cloudInitNoCloudSource: Buffer },
  asked: CloudInitData,
  sidecar: HookSidecar,
): CloudInitData {
  const text = (v: unknown): string => (typeof v === 'string' ? v : '');
  const data = parseJson(res.cloudInitData, 'cloudInitData', sidecar);
  if (text(data.UserData) !== '' && (data.NoCloudMetaData || data.ConfigDriveMetaData)) {
    return { ...asked, UserData: text(data.UserData), NetworkData: text(data.NetworkData) };
  }
  const legacy = parseJson(res.cloudInitNoCloudSource, 'cloudInitNoCloudSource', sidecar);
  return { ...asked, UserData: text(legacy.userData), NetworkData: text(legacy.networkData) };
}

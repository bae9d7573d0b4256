// Test support: a tiny hook sidecar (KubeVirt's hook protocol, docs/hooks.md) serving Info and the Callbacks of
// one version on a unix socket. It records every call; what it does to the domain XML and the cloud-init data
// is the test's function. Served in the test's own process, so the test sees the calls as they happen.
import { mkdir, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Server, ServerCredentials } from '@grpc/grpc-js';
import type { UntypedServiceImplementation, handleUnaryCall } from '@grpc/grpc-js';
import { InfoService } from '../gen/kubevirt/hooks/info/info.js';
import type { HookPoint } from '../gen/kubevirt/hooks/info/info.js';
import { CallbacksService as V1 } from '../gen/kubevirt/hooks/v1alpha1/v1alpha1.js';
import { CallbacksService as V2 } from '../gen/kubevirt/hooks/v1alpha2/v1alpha2.js';
import { CallbacksService as V3 } from '../gen/kubevirt/hooks/v1alpha3/v1alpha3.js';

export interface SidecarOptions {
  name: string;
  hookPoints: HookPoint[];
  /** Versions announced in Info; the first one that has a service here is served. Default ['v1alpha3']. */
  versions?: string[];
  onDefineDomain?: (xml: string, vmiJson: string) => string;
  preCloudInitIso?: (cloudInitData: Record<string, unknown>) => { cloudInitData?: unknown; noCloud?: unknown };
}

export interface SidecarCall {
  method: 'Info' | 'OnDefineDomain' | 'PreCloudInitIso' | 'Shutdown';
  request: Record<string, unknown>;
}

function unary<Req, Res>(calls: SidecarCall[], method: SidecarCall['method'], fn: (req: Req) => Res) {
  const handler: handleUnaryCall<Req, Res> = (call, callback) => {
    calls.push({ method, request: call.request as Record<string, unknown> });
    try {
      callback(null, fn(call.request));
    } catch (err) {
      callback({ code: 13, details: (err as Error).message, name: 'Error', message: (err as Error).message });
    }
  };
  return handler;
}

export class HookSidecar {
  readonly calls: SidecarCall[] = [];
  private readonly server = new Server();

  constructor(private readonly options: SidecarOptions) {}

  /** Calls of one method, in order. */
  callsOf(method: SidecarCall['method']): SidecarCall[] {
    return this.calls.filter((c) => c.method === method);
  }

  async listen(socketPath: string): Promise<void> {
    const o = this.options;
    const versions = o.versions ?? ['v1alpha3'];
    this.server.addService(InfoService, {
      info: unary(this.calls, 'Info', () => ({ name: o.name, hookPoints: o.hookPoints, versions })),
    } as UntypedServiceImplementation);
    const onDefineDomain = unary(this.calls, 'OnDefineDomain', (req: { domainXML: Buffer; vmi: Buffer }) => ({
      domainXML: Buffer.from((o.onDefineDomain ?? ((x: string) => x))(req.domainXML.toString(), req.vmi.toString())),
    }));
    const preCloudInitIso = unary(
      this.calls,
      'PreCloudInitIso',
      (req: { cloudInitData: Buffer; cloudInitNoCloudSource: Buffer }) => {
        const data = JSON.parse(req.cloudInitData.toString()) as Record<string, unknown>;
        const out = o.preCloudInitIso ? o.preCloudInitIso(data) : { cloudInitData: data };
        return {
          cloudInitData: Buffer.from(out.cloudInitData === undefined ? '' : JSON.stringify(out.cloudInitData)),
          cloudInitNoCloudSource: Buffer.from(out.noCloud === undefined ? '' : JSON.stringify(out.noCloud)),
        };
      },
    );
    const shutdown = unary(this.calls, 'Shutdown', () => ({}));
    const served = versions.find((v) => ['v1alpha3', 'v1alpha2', 'v1alpha1'].includes(v));
    if (served === 'v1alpha3') this.server.addService(V3, { onDefineDomain, preCloudInitIso, shutdown });
    if (served === 'v1alpha2') this.server.addService(V2, { onDefineDomain, preCloudInitIso });
    if (served === 'v1alpha1') this.server.addService(V1, { onDefineDomain });
    await mkdir(dirname(socketPath), { recursive: true });
    await rm(socketPath, { force: true });
    await new Promise<void>((resolve, reject) =>
      this.server.bindAsync(`unix://${socketPath}`, ServerCredentials.createInsecure(), (err) =>
        err ? reject(err) : resolve(),
      ),
    );
  }

  close(): void {
    this.server.forceShutdown();
  }
}

// A stand-in launcher for tests: a real grpc-js server on a unix socket in a temp dir, serving CmdInfo and
// Cmd from the launcher's generated definitions (its face), answering what each test scripts. Unscripted
// RPCs answer like our launcher does today: success:false "unsupported: <Rpc>".
import { Server, ServerCredentials } from '@grpc/grpc-js';
import type { handleUnaryCall, ServiceError, UntypedServiceImplementation } from '@grpc/grpc-js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CmdInfoService, CmdService } from '@virt-launcher/launcher';
import type { CmdMethod, RequestOf, ResponseOf } from '@virt-launcher/launcher';

export type Script = { [K in CmdMethod]?: (req: RequestOf<K>) => ResponseOf<K> | Partial<ServiceError> };

export interface StandIn {
  socketPath: string;
  received: Array<{ method: CmdMethod; request: unknown }>;
  close(): Promise<void>;
}

function unsupported(method: CmdMethod): unknown {
  const empty = CmdService[method].responseDeserialize(Buffer.alloc(0)) as unknown as Record<string, unknown>;
  const rpc = CmdService[method].path.split('/').pop();
  const failure = { success: false, message: `unsupported: ${rpc}` };
  if ('response' in empty) empty.response = failure;
  else Object.assign(empty, failure);
  return empty;
}

export async function startStandIn(script: Script): Promise<StandIn> {
  const dir = await mkdtemp(join(tmpdir(), 'vlt-pod-programs-'));
  const socketPath = join(dir, 'launcher-sock');
  const server = new Server();
  const received: StandIn['received'] = [];
  server.addService(CmdInfoService, {
    info: (_call: unknown, cb: (e: null, r: { supportedCmdVersions: number[] }) => void) =>
      cb(null, { supportedCmdVersions: [1] }),
  });
  const impl: UntypedServiceImplementation = {};
  for (const method of Object.keys(CmdService) as CmdMethod[]) {
    const handler: handleUnaryCall<unknown, unknown> = (call, cb) => {
      received.push({ method, request: call.request });
      const fn = script[method] as ((req: unknown) => unknown) | undefined;
      const answer = fn ? fn(call.request) : unsupported(method);
      if (answer && typeof answer === 'object' && 'code' in answer) cb(answer as ServiceError, null);
      else cb(null, answer);
    };
    impl[method] = handler;
  }
  server.addService(CmdService, impl);
  await new Promise<void>((resolve, reject) =>
    server.bindAsync(`unix://${socketPath}`, ServerCredentials.createInsecure(), (err) =>
      err ? reject(err) : resolve(),
    ),
  );
  return {
    socketPath,
    received,
    close: async () => {
      server.forceShutdown();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

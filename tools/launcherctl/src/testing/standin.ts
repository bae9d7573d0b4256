// A stand-in launcher for tests: a real grpc-js server on a real unix socket, built from the same generated
// service definitions (the launcher's face), answering with whatever each test scripts.
import { Server, ServerCredentials } from '@grpc/grpc-js';
import type { handleUnaryCall, ServiceError, UntypedServiceImplementation } from '@grpc/grpc-js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CmdInfoService, CmdService } from '@virt-launcher/launcher';
import type { CmdMethod, RequestOf, ResponseOf } from '@virt-launcher/launcher';

type Answer<K extends CmdMethod> = ResponseOf<K> | Partial<ServiceError> | 'hang';
export type Script = { [K in CmdMethod]?: (req: RequestOf<K>) => Answer<K> };

export interface StandIn {
  dir: string;
  socketPath: string;
  /** Every Cmd request received, in order (Info calls are counted separately). */
  received: Array<{ method: CmdMethod; request: unknown }>;
  infoCalls: number;
  close(): Promise<void>;
}

export async function startStandIn(script: Script, versions: number[] = [1]): Promise<StandIn> {
  const dir = await mkdtemp(join(tmpdir(), 'vlt-launcherctl-'));
  const socketPath = join(dir, 'launcher-sock');
  const server = new Server();
  const state: StandIn = {
    dir,
    socketPath,
    received: [],
    infoCalls: 0,
    close: async () => {
      server.forceShutdown();
      await rm(dir, { recursive: true, force: true });
    },
  };
  server.addService(CmdInfoService, {
    info: (_call: unknown, cb: (e: null, r: { supportedCmdVersions: number[] }) => void) => {
      state.infoCalls++;
      cb(null, { supportedCmdVersions: versions });
    },
  } as UntypedServiceImplementation);
  const impl: UntypedServiceImplementation = {};
  for (const method of Object.keys(script) as CmdMethod[]) {
    const answer = script[method] as (req: unknown) => unknown;
    const handler: handleUnaryCall<unknown, unknown> = (call, cb) => {
      state.received.push({ method, request: call.request });
      const res = answer(call.request);
      if (res === 'hang') return; // never answers: the client's deadline must end the call
      if (typeof res === 'object' && res !== null && 'code' in res) cb(res as Partial<ServiceError>);
      else cb(null, res);
    };
    impl[method] = handler;
  }
  // Methods left out of the script are answered UNIMPLEMENTED by grpc-js.
  server.addService(CmdService, impl);
  await new Promise<void>((resolve, reject) =>
    server.bindAsync(`unix://${socketPath}`, ServerCredentials.createInsecure(), (err) =>
      err ? reject(err) : resolve(),
    ),
  );
  return state;
}

/** Collects what runLauncherctl writes. */
export function captureIo(): { out: string; err: string; io: { stdout(t: string): void; stderr(t: string): void } } {
  const cap = {
    out: '',
    err: '',
    io: {
      stdout: (t: string) => {
        cap.out += t;
      },
      stderr: (t: string) => {
        cap.err += t;
      },
    },
  };
  return cap;
}

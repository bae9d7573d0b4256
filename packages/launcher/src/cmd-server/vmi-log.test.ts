import { afterEach, describe, expect, it } from 'vitest';
import type { DomainManager } from '../domain/manager.js';
import { setLogSink } from '../log.js';
import { domainHandlers } from './handlers.js';
import { buildCmdImplementation } from './rpc-table.js';
import { vmiLogFields } from './vmi-log.js';

const request = (metadata: unknown) => ({ vmi: { vmiJson: Buffer.from(JSON.stringify({ metadata })) } });
const VMI = { name: 'vmi-a', namespace: 'ns-1', uid: '0f1e2d3c-aaaa' };

function captureLog(): Record<string, unknown>[] {
  const lines: Record<string, unknown>[] = [];
  setLogSink((line) => lines.push(JSON.parse(line) as Record<string, unknown>));
  return lines;
}

afterEach(() => setLogSink((line) => process.stderr.write(line + '\n')));

describe('vmiLogFields', () => {
  it("reads KubeVirt's per-VMI keys from the request's VMI", () => {
    expect(vmiLogFields(request(VMI))).toEqual({ kind: 'VirtualMachineInstance', ...VMI });
  });

  it('never throws on a malformed request, and keeps only string values', () => {
    expect(vmiLogFields(undefined)).toEqual({});
    expect(vmiLogFields({ vmi: { vmiJson: Buffer.from('{not json') } })).toEqual({});
    expect(vmiLogFields({ vmi: { vmiJson: Buffer.alloc(0) } })).toEqual({});
    expect(vmiLogFields(request({ name: 7, uid: 'u' }))).toEqual({ kind: 'VirtualMachineInstance', uid: 'u' });
  });
});

describe('per-RPC log lines', () => {
  it("carry the VMI's name, namespace and uid on success", async () => {
    const lines = captureLog();
    const manager = { pause: async () => {} } as unknown as DomainManager;
    await domainHandlers(manager).pauseVirtualMachine!(request(VMI) as never);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ msg: 'Paused vmi', kind: 'VirtualMachineInstance', ...VMI });
    expect(lines[0]!.pos).toMatch(/^handlers\.ts:\d+$/);
  });

  it('and on failure', async () => {
    const lines = captureLog();
    const impl = buildCmdImplementation({
      pauseVirtualMachine: async () => {
        throw new Error('domain is gone');
      },
    });
    const unary = impl.PauseVirtualMachine ?? impl.pauseVirtualMachine;
    await new Promise<void>((resolve) => {
      (unary as (call: unknown, cb: () => void) => void)({ request: request(VMI) }, () => resolve());
    });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 'error', reason: 'domain is gone', ...VMI });
  });
});

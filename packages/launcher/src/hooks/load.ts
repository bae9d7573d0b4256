// Collects the hook sidecars for the early start, loading gRPC and the hook protos only when sidecars were
// requested (early-start.ts stays free of both).
import { mkdir } from 'node:fs/promises';
import type { HookCallbacks } from './callbacks.js';

export async function collectHooks(hooksDir: string, count: number, timeoutMs: number): Promise<HookCallbacks> {
  // In a pod the directory is a shared volume that already exists; under a test's run root it may not.
  await mkdir(hooksDir, { recursive: true });
  const [{ collectHookSidecars }, { HookCallbacks }] = await Promise.all([
    import('./collect.js'),
    import('./callbacks.js'),
  ]);
  return new HookCallbacks(await collectHookSidecars(hooksDir, count, { timeoutMs }));
}

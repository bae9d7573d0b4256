// Asks an istio-proxy sidecar to exit once the launcher is done, or the pod would never finish.
// Presence is probed first (header `server: envoy` on the readiness endpoint); both calls retry
// on connection refused/reset with KubeVirt's backoff. node:http is imported only here, lazily.
import { setTimeout as sleep } from 'node:timers/promises';

export const ISTIO_READY_URL = 'http://localhost:15021/healthz/ready';
export const ISTIO_QUIT_URL = 'http://localhost:15020/quitquitquit';
/** Sleeps after the 1st..4th retriable failure: 10 ms multiplied by 5 before each sleep. */
export const ISTIO_BACKOFF_MS = [50, 250, 1250, 6250] as const;

export interface IstioOptions {
  readyUrl?: string;
  quitUrl?: string;
  backoffMs?: readonly number[];
  /** Receives "status code received: N" style notes and the final failure. */
  log?: (level: 'info' | 'error', msg: string) => void;
}

interface HttpAnswer {
  status: number;
  server: string | undefined;
}

class RetriableStatus extends Error {}

async function request(url: string, method: 'GET' | 'POST'): Promise<HttpAnswer> {
  const http = await import('node:http');
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, timeout: 2000 }, (res) => {
      res.resume();
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, server: String(res.headers.server ?? '') || undefined }),
      );
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`timeout calling ${url}`)));
    req.on('error', reject);
    req.end();
  });
}

const isRetriable = (error: unknown): boolean => {
  if (error instanceof RetriableStatus) return true;
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ECONNREFUSED' || code === 'ECONNRESET';
};

/** Up to backoff.length attempts; a retriable failure (the last one too) is followed by its sleep. */
async function withRetry<T>(attempt: () => Promise<T>, backoff: readonly number[]): Promise<T> {
  let last: unknown;
  for (const delay of backoff) {
    try {
      return await attempt();
    } catch (error) {
      if (!isRetriable(error)) throw error;
      last = error;
      await sleep(delay);
    }
  }
  throw last;
}

/**
 * Deliberate difference from KubeVirt: a refused connection on the readiness port ends the probe at once. KubeVirt
 * retries it like a reset, so every pod without an istio sidecar (most of them) waits ~7.8 s before it may exit.
 * Nothing listening on 15021 at the end of the pod's life means there is no sidecar; a reset still retries.
 */
export async function istioProxyPresent(options: IstioOptions = {}): Promise<boolean> {
  const backoff = options.backoffMs ?? ISTIO_BACKOFF_MS;
  try {
    const answer = await withRetry(async () => {
      try {
        return await request(options.readyUrl ?? ISTIO_READY_URL, 'GET');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ECONNREFUSED') return { status: 0, server: undefined };
        throw error;
      }
    }, backoff);
    return answer.server === 'envoy';
  } catch {
    return false;
  }
}

/** Returns true when a proxy was present and answered the quit request with 200. */
export async function terminateIstioProxy(options: IstioOptions = {}): Promise<boolean> {
  if (!(await istioProxyPresent(options))) return false;
  const backoff = options.backoffMs ?? ISTIO_BACKOFF_MS;
  try {
    const answer = await withRetry(async () => {
      const result = await request(options.quitUrl ?? ISTIO_QUIT_URL, 'POST');
      if (result.status === 503) throw new RetriableStatus('istio-proxy answered 503');
      return result;
    }, backoff);
    if (answer.status !== 200) options.log?.('info', `status code received: ${answer.status}`);
    return answer.status === 200;
  } catch (error) {
    options.log?.('error', `all attempts to terminate istio-proxy failed: ${(error as Error).message}`);
    return false;
  }
}

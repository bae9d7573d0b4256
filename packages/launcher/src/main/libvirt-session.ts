// The libvirt connection, kept alive: connect with retry (every 500 ms for 15 s, docs/behaviour.md#start-up),
// and when the daemon goes away (close event or a failed liveness check) reconnect and re-register the
// event callbacks. Errors carry the daemon's own stderr through `describeFailure`.
import type { Connection } from '../adapters/libvirt.js';
import { connectLibvirt } from '../adapters/libvirt.js';
import { LauncherPanic, errorMessage } from '../errors.js';
import { log } from '../log.js';
import { untilSocketExists } from './socket-wait.js';

export interface SessionOptions {
  retryMs?: number;
  /** A daemon socket to wait for (polled every 10 ms) before the first attempt: no blind retry delay. */
  socketPath?: string;
  totalMs?: number;
  /** Extra context for errors, e.g. the daemon's stderr tail. */
  describeFailure?: () => string;
  onReconnect?: (conn: Connection) => void;
}

export class LibvirtSession {
  private current: Connection | undefined;
  private stopped = false;
  private watchdog: NodeJS.Timeout | undefined;
  private reconnecting: Promise<void> | undefined;

  constructor(
    readonly uri: string,
    private readonly options: SessionOptions = {},
  ) {}

  get connected(): boolean {
    return this.current !== undefined && !this.stopped;
  }

  get conn(): Connection {
    if (!this.current) throw new Error('not connected to libvirt');
    return this.current;
  }

  /**
   * Connects, retrying until the deadline. `first` is a connection already being opened (main/first-connection.ts):
   * adopted when it succeeds; when it yields none, the usual attempts follow.
   */
  async connect(first?: Promise<Connection | undefined>): Promise<Connection> {
    const retryMs = this.options.retryMs ?? 500;
    // Counted from the call: the head start's wait for the socket is part of the same deadline.
    const deadline = Date.now() + (this.options.totalMs ?? 15_000);
    const early = await first;
    if (early && this.stopped) {
      await early.close().catch(() => undefined);
      throw new LauncherPanic(`libvirt session to ${this.uri} closed before it was connected`);
    }
    if (early) {
      this.adopt(early);
      log.info('Connected to libvirt daemon', { uri: this.uri });
      return early;
    }
    const socket = this.options.socketPath;
    if (socket) await untilSocketExists(socket, { timeoutMs: deadline - Date.now(), shouldStop: () => this.stopped });
    for (;;) {
      try {
        const conn = await connectLibvirt(this.uri);
        this.adopt(conn);
        log.info('Connected to libvirt daemon', { uri: this.uri });
        return conn;
      } catch (err) {
        if (Date.now() + retryMs > deadline || this.stopped) {
          const extra = this.options.describeFailure?.() ?? '';
          throw new LauncherPanic(`failed to connect to libvirt at ${this.uri}: ${errorMessage(err)}${extra}`, err);
        }
        await new Promise((r) => setTimeout(r, retryMs));
      }
    }
  }

  private adopt(conn: Connection): void {
    this.current = conn;
    conn.once('close', (reason: unknown) => {
      if (this.stopped) return;
      log.warning('libvirt connection lost, reconnecting', { reason: String(reason) });
      void this.reconnect();
    });
    this.watchdog ??= setInterval(() => void this.checkAlive(), 10_000).unref();
  }

  private async checkAlive(): Promise<void> {
    if (this.stopped || this.reconnecting) return;
    const alive = await this.current?.isAlive().catch(() => false);
    if (!alive) await this.reconnect();
  }

  private reconnect(): Promise<void> {
    this.reconnecting ??= (async () => {
      try {
        await this.current?.close().catch(() => undefined);
        const conn = await this.connect();
        this.options.onReconnect?.(conn);
      } catch (err) {
        log.error('reconnecting to libvirt failed', { reason: errorMessage(err) });
      } finally {
        this.reconnecting = undefined;
      }
    })();
    return this.reconnecting;
  }

  async close(): Promise<void> {
    this.stopped = true;
    if (this.watchdog) clearInterval(this.watchdog);
    await this.current?.close().catch(() => undefined);
  }
}

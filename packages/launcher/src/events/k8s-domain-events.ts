// The Kubernetes events libvirt's domain events cause, as KubeVirt's notify client sends them
// (docs/k8s-events.md): `GuestPanicked` (Warning) when the guest crashed, and `IOerror` (Warning) per disk
// when QEMU paused the guest for an I/O error (the disk named by its VMI volume, i.e. its alias without `ua-`).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type * as Libvirt from '@virt-launcher/libvirt';
import type { Connection, DomainEvent, Domain } from '../adapters/libvirt.js';
import { errorMessage } from '../errors.js';
import { log } from '../log.js';
import { K8sEventSender } from './k8s-events.js';

/** The connection calls used here; the binding's Domain also answers getDiskErrors. */
type DiskErrorDomain = Domain & Partial<Pick<Libvirt.Domain, 'getDiskErrors'>>;
export type K8sEventsConnection = Pick<Connection, 'lookupDomainByName' | 'on' | 'off'>;

/** Matches QEMU's log line for a panic with details, e.g. `panic hyper-v: arg1='0x5a', arg2='0x1', …`. */
const PANIC_LINE = /panic\s+(\S+):\s*(.*)/;
const PANIC_ARG = /arg(\d+)=['"]?(0x[0-9a-fA-F]+)['"]?/g;

/** KubeVirt's message for a panic: hyper-v's five bug-check words, else the panic type, else "unavailable". */
export function panicMessage(logText: string | undefined): string {
  const lines = (logText ?? '').split('\n').filter((l) => PANIC_LINE.test(l));
  const match = lines.length > 0 ? PANIC_LINE.exec(lines[lines.length - 1]!) : null;
  if (!match) return 'GuestPanicked (details unavailable)';
  const [, type, rest] = match;
  if (type === 'hyper-v') {
    const args = ['0x0', '0x0', '0x0', '0x0', '0x0'];
    for (const [, n, value] of rest!.matchAll(PANIC_ARG)) {
      const i = Number(n) - 1;
      if (i >= 0 && i < 5) args[i] = `0x${BigInt(value!).toString(16)}`;
    }
    return `GuestPanicked: ${args.map((a) => `'${a}'`).join(', ')}`;
  }
  return `GuestPanicked: type=${type}`;
}

/** Target device → VMI volume name, from the live domain XML (`<target dev=…/>` and `<alias name='ua-…'/>`). */
export function volumesByTarget(xml: string): Map<string, string> {
  const map = new Map<string, string>();
  for (const disk of xml.match(/<disk\b[\s\S]*?<\/disk>/g) ?? []) {
    const target = /<target\b[^>]*\bdev=['"]([^'"]+)['"]/.exec(disk)?.[1];
    const alias = /<alias\b[^>]*\bname=['"]([^'"]+)['"]/.exec(disk)?.[1];
    if (target) map.set(target, alias ? alias.replace(/^ua-/, '') : '');
  }
  return map;
}

export class DomainK8sEvents {
  private panicHandled = false;
  private chain: Promise<void> = Promise.resolve();
  private readonly listener = (ev: DomainEvent): void => {
    if (this.domainName !== '' && ev.name !== this.domainName) return;
    this.chain = this.chain
      .then(() => this.handle(ev))
      .catch((err: unknown) => {
        log.error('Could not send k8s event', { reason: errorMessage(err) });
      });
  };

  constructor(
    /** `<ns>_<name>`; empty: every domain (the launcher has only one). */
    private readonly domainName: string,
    private readonly conn: () => K8sEventsConnection,
    private readonly sender: Pick<K8sEventSender, 'sendK8sEvent'>,
    /** QEMU's log for the domain, where a panic's details are written. */
    private readonly qemuLogPath: (domainName: string) => string,
  ) {}

  /** (Re)registers on a connection; call after every (re)connect. */
  attach(conn: K8sEventsConnection): void {
    conn.off('domainEvent', this.listener);
    conn.on('domainEvent', this.listener);
  }

  /** Resolves once every event seen so far was handled. */
  drain(): Promise<void> {
    return this.chain;
  }

  private async handle(ev: DomainEvent): Promise<void> {
    if (ev.event === 'crashed') await this.guestPanicked(ev);
    else if (ev.event === 'suspended' && ev.detail === 'ioerror') await this.ioErrors(ev.name);
  }

  private async guestPanicked(ev: DomainEvent): Promise<void> {
    if (this.panicHandled) return;
    // A crashloaded guest (kdump) reboots and may panic again; a panicked one is reported once.
    if (ev.detail === 'panicked') this.panicHandled = true;
    const text = await readFile(this.qemuLogPath(ev.name), 'utf8').catch(() => undefined);
    const message = panicMessage(text);
    log.info(`Guest panic detected: ${message}`);
    await this.sender.sendK8sEvent({ type: 'Warning', reason: 'GuestPanicked', message });
  }

  private async ioErrors(name: string): Promise<void> {
    const dom = (await this.conn().lookupDomainByName(name)) as DiskErrorDomain;
    if (!dom.getDiskErrors) return;
    const errors = await dom.getDiskErrors();
    const volumes = volumesByTarget(await dom.getXMLDesc().catch(() => ''));
    for (const { disk, error } of errors) {
      if (error === 'none') continue;
      const volume = volumes.get(disk) ?? '';
      const message =
        error === 'no_space'
          ? `VM Paused due to not enough space on volume: ${volume}`
          : `VM Paused due to IO error at the volume: ${volume}`;
      await this.sender.sendK8sEvent({ type: 'Warning', reason: 'IOerror', message });
    }
  }
}

/** The launcher's sender (for every part that reports an event) and the domain-event reporter built on it. */
export function launcherK8sEvents(opts: {
  flags: { namespace: string; name: string; uid: string };
  libvirtLogDir: string;
  notifier: ConstructorParameters<typeof K8sEventSender>[0];
  /** The VMI UID the first Sync recorded, used when --uid was not given. */
  metadataUid: () => string;
  domainName: string;
  conn: () => K8sEventsConnection;
}): { sender: K8sEventSender; reporter: DomainK8sEvents } {
  const { flags } = opts;
  const sender = new K8sEventSender(opts.notifier, () => ({
    namespace: flags.namespace || 'default',
    name: flags.name,
    uid: flags.uid || opts.metadataUid(),
  }));
  const reporter = new DomainK8sEvents(opts.domainName, opts.conn, sender, (name) =>
    join(opts.libvirtLogDir, `${name}.log`),
  );
  return { sender, reporter };
}

// Test support for the runtime reconcile: the fake connection's domain plus the calls that change a running
// guest, acting on the domain's XML as libvirt would (attach adds the element to <devices>, detach removes the
// one with the same target or alias and reports deviceRemoved, updateDevice replaces it in place). A failure
// can be injected per call; every call is recorded with its XML.
import type * as Libvirt from '@virt-launcher/libvirt';
import { FakeDomain } from './fake-connection.js';
import type { FakeConnection } from './fake-connection.js';
import { STATE } from '../domain/state.js';

export type RuntimeCall = 'attachDevice' | 'detachDevice' | 'updateDevice' | 'blockResize' | 'setVcpus' | 'getStats';

export class FakeRuntimeDomain extends FakeDomain {
  readonly runtimeCalls: Array<{ call: RuntimeCall; arg: string }> = [];
  /** Block capacity the fake reports per target (getStats `block` group). */
  readonly capacities = new Map<string, number>();
  private readonly failing = new Map<RuntimeCall, string>();

  constructor(
    private readonly conn: FakeConnection,
    name: string,
    xml: string,
  ) {
    super(conn, name, xml, '00000000-0000-4000-8000-00000000abcd');
    this.stateCode = STATE.running;
  }

  // The fake connection does not list this domain (it is made directly, not by defineXML): read its XML and
  // state without the connection's lookup.
  override async getXMLDesc(): Promise<string> {
    return this.xml;
  }

  failNextRuntime(call: RuntimeCall, message: string): void {
    this.failing.set(call, message);
  }

  private record(call: RuntimeCall, arg: string): void {
    this.runtimeCalls.push({ call, arg });
    const message = this.failing.get(call);
    if (message !== undefined) {
      this.failing.delete(call);
      this.conn.throwCode('OPERATION_FAILED', message);
    }
  }

  private find(deviceXml: string): string | undefined {
    const kind = /^<(\w+)/.exec(deviceXml)?.[1] ?? '';
    const key =
      /<target dev=["']([^"']+)["']/.exec(deviceXml)?.[0] ?? /<alias name=["']([^"']+)["']/.exec(deviceXml)?.[0];
    const all = this.xml.match(new RegExp(`<${kind}\\b[\\s\\S]*?</${kind}>`, 'g')) ?? [];
    return all.find((d) => key !== undefined && d.replace(/"/g, "'").includes(key.replace(/"/g, "'")));
  }

  async attachDevice(xml: string): Promise<void> {
    this.record('attachDevice', xml);
    this.xml = this.xml.replace('</devices>', `${xml}</devices>`);
  }

  async detachDevice(xml: string): Promise<void> {
    this.record('detachDevice', xml);
    const found = this.find(xml);
    if (!found) this.conn.throwCode('DEVICE_MISSING', 'device not found');
    this.xml = this.xml.replace(found, '');
    const alias = /<alias name=["']([^"']+)["']/.exec(found)?.[1] ?? '';
    this.conn.emit('deviceRemoved', { name: this.name, uuid: this.uuid, alias } as Libvirt.DeviceEvent);
  }

  async updateDevice(xml: string): Promise<void> {
    this.record('updateDevice', xml);
    const found = this.find(xml);
    if (!found) this.conn.throwCode('DEVICE_MISSING', 'device not found');
    this.xml = this.xml.replace(found, xml);
  }

  async blockResize(disk: string, bytes: number): Promise<void> {
    this.record('blockResize', `${disk}=${bytes}`);
    this.capacities.set(disk, bytes);
  }

  async setVcpus(count: number): Promise<void> {
    this.record('setVcpus', String(count));
    this.xml = this.xml.replace(/<vcpu\b[^>]*>(\d+)<\/vcpu>/, `<vcpu current='${count}'>$1</vcpu>`);
  }

  async getStats(): Promise<Libvirt.DomainStats> {
    this.record('getStats', '');
    const stats: Record<string, number | string> = { 'block.count': this.capacities.size };
    [...this.capacities].forEach(([name, capacity], i) => {
      stats[`block.${i}.name`] = name;
      stats[`block.${i}.capacity`] = capacity;
    });
    return { name: this.name, uuid: this.uuid, stats };
  }
}

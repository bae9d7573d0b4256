// The owner record of a bridge binding, kept as the bridge's interface alias (IFALIAS, at most 255 bytes): what
// the pod interface was (MAC, addresses, routes) and the arp_ignore value before the apply, so a teardown can
// give the pod its interface back without any file outside the namespace.
import type { BridgeBindingPlan } from './types.js';

const TAG = 'vlt-bridge';
const MAX_ALIAS = 255;

export interface BridgeRecord {
  pod: string;
  nic: string;
  mac: string;
  addresses: string[];
  routes: Array<{ destination: string; gateway: string }>;
  arpIgnorePrior: string;
}

/** `vlt-bridge;pod=eth0;nic=eth0-nic;mac=..;arp=0;addr=a,b;route=dst>gw,...` with no spaces (ip -batch splits on them). */
export function formatRecord(plan: BridgeBindingPlan, arpIgnorePrior: string): string {
  const head = `${TAG};pod=${plan.podInterface};nic=${plan.nic};mac=${plan.podMac};arp=${arpIgnorePrior};addr=${plan.podAddresses.join(',')}`;
  let text = `${head};route=`;
  // Routes that do not fit are dropped from the end: the default route comes first in `ip route` output.
  for (const [i, r] of plan.podRoutes.entries()) {
    const item = `${i === 0 ? '' : ','}${r.destination}>${r.gateway}`;
    if (text.length + item.length > MAX_ALIAS) break;
    text += item;
  }
  return text;
}

export function parseRecord(alias: string | undefined): BridgeRecord | undefined {
  if (!alias?.startsWith(`${TAG};`)) return undefined;
  const fields = new Map(
    alias
      .split(';')
      .slice(1)
      .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)] as const),
  );
  const list = (k: string) => (fields.get(k) ?? '').split(',').filter((s) => s !== '');
  return {
    pod: fields.get('pod') ?? '',
    nic: fields.get('nic') ?? '',
    mac: fields.get('mac') ?? '',
    arpIgnorePrior: fields.get('arp') ?? '',
    addresses: list('addr'),
    routes: list('route').map((r) => {
      const [destination = '', gateway = ''] = r.split('>');
      return { destination, gateway };
    }),
  };
}

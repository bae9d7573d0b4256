// The masquerade NAT of one family as an nftables table: chain layout and rule order follow KubeVirt's
// MasqPod.Setup (docs/masquerade.md#nftables), rendered as an `nft -f` block.
import { dportText } from './ports.js';
import type { PortSpec } from './gen/virtlauncher/netsetup/v1/netsetup.js';

export type NftFamily = 'ip' | 'ip6';

export interface NatInputs {
  family: NftFamily;
  table: string;
  podIface: string;
  bridge: string;
  guestIp: string;
  gatewayIp: string;
  ports: readonly PortSpec[];
  legacyMigrationPorts: boolean;
  istio: boolean;
  /** The pod's IPv4, DNAT'ed from the output chain too when istio redirects to it. */
  podIpv4: string;
}

export const PREINBOUND = 'KUBEVIRT_PREINBOUND';
export const POSTINBOUND = 'KUBEVIRT_POSTINBOUND';
const MIGRATION_PORTS = '{ 49152, 49153 }';
const ENVOY_PORTS = '{ 15000, 15001, 15004, 15006, 15008, 15009, 15020, 15021, 15053, 15090 }';
const ISTIO_SSH_PORT = 22;

/** Base chains with their hooks; nft 1.0.6 refuses the `dstnat` keyword on output, so numbers are used throughout. */
const BASE_CHAINS: ReadonlyArray<{ name: string; hook: string; priority: number }> = [
  { name: 'prerouting', hook: 'prerouting', priority: -100 },
  { name: 'input', hook: 'input', priority: 100 },
  { name: 'output', hook: 'output', priority: -100 },
  { name: 'postrouting', hook: 'postrouting', priority: 100 },
];

export type ChainRules = Record<string, string[]>;

/** Interface names are bare words in KubeVirt's rules; anything nft would not read as one is quoted. */
export function ifname(name: string): string {
  return /^[A-Za-z_.][A-Za-z0-9/_.-]*$/.test(name) ? name : `"${name}"`;
}

function portRulesFor(i: NatInputs, p: PortSpec, loopbacks: string, daddrs: string, rules: ChainRules): void {
  const dport = dportText(p);
  const last = p.portEnd || p.port;
  if (!i.istio) {
    // KubeVirt writes a declared port as a one-element set and a port range (portRanges) bare.
    const match = p.portEnd ? dport : `{ ${dport} }`;
    rules[PREINBOUND]!.push(`${p.protocol} dport ${match} counter dnat to ${i.guestIp}`);
  } else if (p.port <= ISTIO_SSH_PORT && ISTIO_SSH_PORT <= last) {
    // Behind istio only SSH bypasses the proxy; every other port reaches the guest through envoy. KubeVirt
    // forwards tcp 22 whenever the port or range covers 22, whatever its protocol.
    rules[PREINBOUND]!.push(`tcp dport { ${ISTIO_SSH_PORT} } counter dnat to ${i.guestIp}`);
  }
  rules[POSTINBOUND]!.push(
    `${p.protocol} dport ${dport} ${i.family} saddr { ${loopbacks} } counter snat to ${i.gatewayIp}`,
  );
  rules.output!.push(`${i.family} daddr { ${daddrs} } ${p.protocol} dport ${dport} counter dnat to ${i.guestIp}`);
}

/** Rules per chain, in the order nft must hold them. */
export function natRules(i: NatInputs): ChainRules {
  const rules: ChainRules = {
    prerouting: [],
    input: [],
    output: [],
    postrouting: [],
    [PREINBOUND]: [],
    [POSTINBOUND]: [],
  };
  const lo = i.family === 'ip' ? '127.0.0.1' : '::1';
  const loopbacks = i.istio && i.family === 'ip' ? `${lo}, 127.0.0.6` : lo;
  const daddrs = i.istio && i.family === 'ip' && i.podIpv4 ? `${lo}, ${i.podIpv4}` : lo;

  rules.postrouting!.push(`${i.family} saddr ${i.guestIp} counter masquerade`);
  rules.prerouting!.push(`iifname ${ifname(i.podIface)} counter jump ${PREINBOUND}`);
  rules.postrouting!.push(`oifname ${ifname(i.bridge)} counter jump ${POSTINBOUND}`);

  if (i.legacyMigrationPorts) {
    // Migration over TCP uses these ports of the pod itself: they must never be redirected to the guest.
    const keep = `tcp dport ${MIGRATION_PORTS} ${i.family} saddr ${lo} counter return`;
    rules.output!.push(keep);
    rules[POSTINBOUND]!.push(keep);
  }

  if (i.ports.length > 0) {
    for (const p of i.ports) portRulesFor(i, p, loopbacks, daddrs, rules);
    return rules;
  }
  if (i.istio) {
    const envoy = `tcp dport ${ENVOY_PORTS} ${i.family} saddr ${lo} counter return`;
    rules.output!.push(envoy);
    rules[POSTINBOUND]!.push(envoy);
    rules[PREINBOUND]!.push(`tcp dport { ${ISTIO_SSH_PORT} } counter dnat to ${i.guestIp}`);
  } else {
    rules[PREINBOUND]!.push(`counter dnat to ${i.guestIp}`);
  }
  rules[POSTINBOUND]!.push(`${i.family} saddr { ${loopbacks} } counter snat to ${i.gatewayIp}`);
  rules.output!.push(`${i.family} daddr { ${daddrs} } counter dnat to ${i.guestIp}`);
  return rules;
}

/** The table as an `nft -f` block; `comment` (the owner record) goes first when given. */
export function renderTable(family: NftFamily, table: string, rules: ChainRules, comment?: string): string {
  const lines = [`table ${family} ${table} {`];
  if (comment !== undefined) lines.push(`\tcomment "${comment}"`);
  const chains = [...BASE_CHAINS.map((c) => c.name), PREINBOUND, POSTINBOUND];
  for (const name of chains) {
    const base = BASE_CHAINS.find((c) => c.name === name);
    lines.push(`\tchain ${name} {`);
    if (base) lines.push(`\t\ttype nat hook ${base.hook} priority ${base.priority}; policy accept;`);
    for (const rule of rules[name] ?? []) lines.push(`\t\t${rule}`);
    lines.push('\t}');
  }
  lines.push('}');
  return `${lines.join('\n')}\n`;
}

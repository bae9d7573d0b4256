// `virt-netsetup bridge`: discover + plan + apply the bridge binding for one pod interface, write the DHCP
// configuration the launcher serves (vif-cache-<pod iface>.json), or give the pod interface back (--teardown).
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { DhcpServerConfig } from '@virt-launcher/contracts';
import { discoverPodInterface } from '../discover.js';
import { BadInputError, InvalidRequestError } from '../errors.js';
import { applyBridgePlan, bridgeBindingApplied, teardownBridge } from './apply.js';
import { planBridge } from './plan.js';
import type { BridgeBindingPlan } from './types.js';
import { bridgeRequestFor, type BridgeVmiLike } from './vmi-request.js';

export const BRIDGE_USAGE = `  virt-netsetup bridge --netns NAME --vmi FILE --iface NAME [--pod-iface NAME] [--dhcp-cache DIR]
                [--tap-uid 107] [--tap-gid 107] [--queues N] [--resolv-conf PATH] [--hostname NAME]
                [--dry-run] [--output json|text]
      Bridge binding of the VMI interface --iface: its pod interface (eth0 for the pod network, pod<hash> for
      a Multus one; --pod-iface overrides) becomes a port of k6t-<name> without its addresses, the tap joins the bridge, and DIR/vif-cache-<pod iface>.json gets the guest's DHCP configuration (the
      pod's IPv4 address, gateway, routes, MTU, DNS; empty when the interface had no IPv4 address).
  virt-netsetup bridge --teardown --netns NAME --pod-iface NAME [--output json|text]`;

class BridgeUsageError extends BadInputError {
  override name = 'UsageError';
}

function uint(name: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  if (!/^\d{1,10}$/.test(text) || Number(text) > 0xffffffff) throw new BridgeUsageError(`--${name} must be a number`);
  return Number(text);
}

function parse(argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      strict: true,
      options: {
        netns: { type: 'string' },
        vmi: { type: 'string' },
        iface: { type: 'string' },
        'pod-iface': { type: 'string' },
        'dhcp-cache': { type: 'string' },
        'tap-uid': { type: 'string' },
        'tap-gid': { type: 'string' },
        queues: { type: 'string' },
        'resolv-conf': { type: 'string' },
        hostname: { type: 'string' },
        teardown: { type: 'boolean' },
        'dry-run': { type: 'boolean' },
        output: { type: 'string' },
      },
    }).values;
  } catch (err) {
    throw new BridgeUsageError(err instanceof Error ? err.message : String(err));
  }
}

/** Written beside, then renamed: the launcher never reads half a file. */
export async function writeBridgeDhcpCache(dir: string, plan: BridgeBindingPlan): Promise<string> {
  await mkdir(dir, { recursive: true });
  const path = join(dir, `vif-cache-${plan.podInterface}.json`);
  await writeFile(`${path}.tmp`, JSON.stringify(DhcpServerConfig.toJSON(plan.dhcp)));
  await rename(`${path}.tmp`, path);
  return path;
}

function planLines(plan: BridgeBindingPlan): string[] {
  const v4 = plan.dhcp.v4;
  return [
    `port ${plan.podInterface} -> ${plan.nic} ${plan.nicMac} master ${plan.bridge.name}`,
    `guest mac ${plan.guestMac}, pod addresses moved: ${plan.podAddresses.join(' ') || 'none'}`,
    `bridge ${plan.bridge.name} ${plan.bridge.mac} mtu ${plan.bridge.mtu} ${plan.bridge.addresses.join(' ')}`.trimEnd(),
    `tap ${plan.tap.name} master ${plan.tap.master} mtu ${plan.tap.mtu} owner ${plan.tap.ownerUid}:${plan.tap.ownerGid}`,
    v4
      ? `dhcp4 ${v4.clientIpCidr} for ${v4.clientMac} from ${v4.serverIp} router ${v4.router || '-'} routes ${v4.routes.map((r) => `${r.destination}>${r.gateway || 'on-link'}`).join(',') || '-'} dns ${v4.dnsServers.join(',')} mtu ${v4.mtu}`
      : 'dhcp none (the pod interface has no IPv4 address)',
  ];
}

export async function bridgeCommand(argv: string[]): Promise<void> {
  const v = parse(argv);
  if (!v.netns) throw new BridgeUsageError('--netns is required');
  const output = v.output ?? 'text';
  if (output !== 'json' && output !== 'text') throw new BridgeUsageError('--output must be json or text');
  if (v.teardown) {
    if (!v['pod-iface']) throw new BridgeUsageError('--teardown needs --pod-iface');
    const report = await teardownBridge(v['pod-iface'], v.netns);
    process.stdout.write(
      output === 'json'
        ? `${JSON.stringify(report)}\n`
        : `links deleted: ${report.linksDeleted.join(', ') || 'none'}\npod interface restored: ${report.podInterfaceRestored}\n`,
    );
    return;
  }
  if (!v.vmi || !v.iface) throw new BridgeUsageError('--vmi and --iface are required');
  let vmi: BridgeVmiLike;
  try {
    vmi = JSON.parse(await readFile(v.vmi, 'utf8')) as BridgeVmiLike;
  } catch (err) {
    throw new InvalidRequestError(`--vmi ${v.vmi}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const { podInterfaceNameFor } = await import('./vmi-request.js');
  const podIface = v['pod-iface'] ?? podInterfaceNameFor(vmi, v.iface);
  // The pod interface is gone once the binding is made: a second run finds it in place and changes nothing.
  if (await bridgeBindingApplied(podIface, v.netns)) {
    const noop = { noop: true, linkCommands: [], sysctlsWritten: {} };
    process.stdout.write(output === 'json' ? `${JSON.stringify({ applied: noop })}\n` : 'applied: already in place\n');
    return;
  }
  const facts = await discoverPodInterface(v.netns, podIface, {
    resolvConfPath: v['resolv-conf'],
    hostname: v.hostname,
  });
  const plan = planBridge(
    bridgeRequestFor(vmi, v.iface, facts, {
      tapUid: uint('tap-uid', v['tap-uid'], 107),
      tapGid: uint('tap-gid', v['tap-gid'], 107),
      queues: uint('queues', v.queues, 0),
    }),
  );
  const applied = v['dry-run'] ? undefined : await applyBridgePlan(plan, v.netns);
  // A second run finds the binding in place and the pod interface already moved: the first cache stays.
  const cache = v['dhcp-cache'] && applied && !applied.noop ? await writeBridgeDhcpCache(v['dhcp-cache'], plan) : '';
  if (output === 'json') {
    process.stdout.write(
      `${JSON.stringify({ plan: { ...plan, dhcp: DhcpServerConfig.toJSON(plan.dhcp) }, applied, cache })}\n`,
    );
    return;
  }
  const status = applied ? (applied.noop ? 'applied: already in place' : 'applied') : 'dry run: nothing applied';
  process.stdout.write(`${[...planLines(plan), status, ...(cache ? [`dhcp cache ${cache}`] : [])].join('\n')}\n`);
}

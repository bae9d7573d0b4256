// `virt-netsetup bridge`: discover + plan + apply the bridge binding for one pod interface, write what network
// phase 1 caches for the launcher (vif-cache-<pod iface>.json, as virt-handler writes it), or give the pod
// interface back (--teardown).
import { chmod, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { encodeVifCache } from '@virt-launcher/shared';
import { discoverPodInterface } from '../discover.js';
import { BadInputError, InvalidRequestError } from '../errors.js';
import { applyBridgePlan, bridgeBindingApplied, teardownBridge } from './apply.js';
import { planBridge } from './plan.js';
import type { BridgeBindingPlan } from './types.js';
import { bridgeRequestFor, type BridgeVmiLike } from './vmi-request.js';

export const BRIDGE_USAGE = `  virt-netsetup bridge --netns NAME --vmi FILE --iface NAME [--pod-iface NAME] [--dhcp-cache DIR]
                [--tap-uid 107] [--tap-gid 107] [--queues N]
                [--dry-run] [--output json|text]
      Bridge binding of the VMI interface --iface: its pod interface (eth0 for the pod network, pod<hash> for
      a Multus one; --pod-iface overrides) becomes a port of k6t-<name> without its addresses, the tap joins
      the bridge, and DIR/vif-cache-<pod iface>.json gets what KubeVirt's virt-handler caches there for the
      launcher (the pod's IPv4 address, the guest's MAC, gateway and routes; only IPAMDisabled when the
      interface had no IPv4 address).
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
        teardown: { type: 'boolean' },
        'dry-run': { type: 'boolean' },
        output: { type: 'string' },
      },
    }).values;
  } catch (err) {
    throw new BridgeUsageError(err instanceof Error ? err.message : String(err));
  }
}

/** Mode and directory mode of KubeVirt's cache files (pkg/network/cache/cache.go). */
export const VIF_CACHE_FILE_MODE = 0o604;
const VIF_CACHE_DIR_MODE = 0o750;

/**
 * The bytes virt-handler's phase 1 writes (encodeVifCache: Go's MarshalIndent of cache.DHCPConfig), mode 0604
 * whatever the umask. Written beside, then renamed: the launcher never reads half a file.
 */
export async function writeBridgeDhcpCache(
  dir: string,
  plan: Pick<BridgeBindingPlan, 'podInterface' | 'dhcpCache'>,
): Promise<string> {
  await mkdir(dir, { recursive: true, mode: VIF_CACHE_DIR_MODE });
  const path = join(dir, `vif-cache-${plan.podInterface}.json`);
  const tmp = `${path}.${process.pid}.tmp`;
  try {
    await writeFile(tmp, encodeVifCache(plan.dhcpCache), { mode: VIF_CACHE_FILE_MODE });
    await chmod(tmp, VIF_CACHE_FILE_MODE);
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
  return path;
}

function dhcpLine(plan: BridgeBindingPlan): string {
  const c = plan.dhcpCache;
  if (!c.ipv4) return 'dhcp none (the pod interface has no IPv4 address: IPAM disabled)';
  const routes = (c.routes ?? []).map((r) => `${r.destination ?? 'default'}>${r.gateway ?? 'on-link'}`);
  return `dhcp4 ${c.ipv4.address}/${c.ipv4.prefixLength} for ${c.mac ?? '-'} gateway ${c.gateway ?? '-'} routes ${routes.join(',') || '-'}`;
}

function planLines(plan: BridgeBindingPlan): string[] {
  return [
    `port ${plan.podInterface} -> ${plan.nic} ${plan.nicMac} master ${plan.bridge.name}`,
    `guest mac ${plan.guestMac}, pod addresses moved: ${plan.podAddresses.join(' ') || 'none'}`,
    `bridge ${plan.bridge.name} ${plan.bridge.mac} mtu ${plan.bridge.mtu} ${plan.bridge.addresses.join(' ')}`.trimEnd(),
    `tap ${plan.tap.name} master ${plan.tap.master} mtu ${plan.tap.mtu} owner ${plan.tap.ownerUid}:${plan.tap.ownerGid}`,
    dhcpLine(plan),
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
  const facts = await discoverPodInterface(v.netns, podIface);
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
    process.stdout.write(`${JSON.stringify({ plan, applied, cache })}\n`);
    return;
  }
  const status = applied ? (applied.noop ? 'applied: already in place' : 'applied') : 'dry run: nothing applied';
  process.stdout.write(`${[...planLines(plan), status, ...(cache ? [`dhcp cache ${cache}`] : [])].join('\n')}\n`);
}

#!/usr/bin/env node
// virt-netsetup: discover + plan + apply the masquerade binding in a pod namespace, or tear it down.
// Exit codes: 0 done, 2 bad input (nothing was changed), 1 any other failure (what was created is rolled back).
import { applyPlan } from './apply.js';
import { parseCli, USAGE } from './cli-args.js';
import type { MasqueradeArgs, TeardownArgs } from './cli-args.js';
import { discoverPodInterface } from './discover.js';
import { readFile } from 'node:fs/promises';
import { BadInputError, InvalidRequestError } from './errors.js';
import { planMasquerade } from './plan.js';
import { teardown } from './teardown.js';
import { masqueradeRequestFor, type VmiLike } from './vmi-request.js';
import type { MasqueradeRequest, PodInterfaceFacts } from './gen/virtlauncher/netsetup/v1/netsetup.js';

/** The request a VMI file asks for: its interface --iface, or the first masquerade one. */
async function requestFromVmiFile(a: MasqueradeArgs, pod: PodInterfaceFacts): Promise<MasqueradeRequest> {
  let vmi: VmiLike;
  try {
    vmi = JSON.parse(await readFile(a.vmi!, 'utf8')) as VmiLike;
  } catch (err) {
    throw new InvalidRequestError(`--vmi ${a.vmi}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const iface = a.iface || vmi.spec?.domain?.devices?.interfaces?.find((i) => i.masquerade)?.name || '';
  if (!iface) throw new InvalidRequestError(`--vmi ${a.vmi}: no interface uses the masquerade binding`);
  return masqueradeRequestFor(vmi, iface, pod, {
    tapUid: a.tapUid,
    tapGid: a.tapGid,
    queues: a.queues,
    legacyMigrationPorts: a.legacyMigrationPorts,
  });
}

async function masquerade(a: MasqueradeArgs): Promise<void> {
  const pod = await discoverPodInterface(a.netns, a.podIface);
  // A plain request object: the generated codec is only loaded when JSON is printed (it costs start-up time).
  const request: MasqueradeRequest = a.vmi
    ? await requestFromVmiFile(a, pod)
    : {
        pod,
        ports: a.ports,
        ipv6: a.ipv6,
        queues: a.queues,
        tapUid: a.tapUid,
        tapGid: a.tapGid,
        vmNetworkCidr: a.vmCidr,
        vmIpv6NetworkCidr: a.vmIpv6Cidr,
        tapName: '',
        legacyMigrationPorts: a.legacyMigrationPorts,
        istio: a.istio,
      };
  const plan = planMasquerade(request);
  const applied = a.dryRun ? undefined : await applyPlan(plan, a.netns);
  if (a.output === 'json') {
    const { MasqueradePlan } = await import('./gen/virtlauncher/netsetup/v1/netsetup.js');
    process.stdout.write(`${JSON.stringify({ plan: MasqueradePlan.toJSON(plan), applied })}\n`);
    return;
  }
  const lines = [
    `bridge ${plan.bridge!.name} ${plan.bridge!.mac} mtu ${plan.bridge!.mtu} ${plan.bridge!.addresses.join(' ')}`,
    `tap ${plan.tap!.name} master ${plan.tap!.master} mtu ${plan.tap!.mtu} owner ${plan.tap!.ownerUid}:${plan.tap!.ownerGid}` +
      (plan.tap!.multiqueue ? ` multiqueue ${plan.tap!.queues}` : ''),
    ...plan.sysctls.map((s) => `sysctl ${s.path}=${s.value}`),
    ...[plan.ipv4, plan.ipv6].map(
      (g) => g && `guest ${g.guestIp}/${g.prefixLength} gateway ${g.gatewayIp} (the launcher serves it by DHCP)`,
    ),
    applied ? (applied.noop ? 'applied: already in place' : 'applied') : 'dry run: nothing applied',
  ].filter((l): l is string => !!l);
  process.stdout.write(`${lines.join('\n')}\n${plan.nftRuleset}`);
}

async function down(a: TeardownArgs): Promise<void> {
  const report = await teardown(a.podIface, a.netns);
  if (a.output === 'json') process.stdout.write(`${JSON.stringify(report)}\n`);
  else {
    process.stdout.write(
      `tables deleted: ${report.tablesDeleted.join(', ') || 'none'}\nlinks deleted: ${report.linksDeleted.join(', ') || 'none'}\n`,
    );
  }
}

/**
 * The bridge binding's command, loaded only when asked for: it brings the contracts' DHCP codec, which the
 * masquerade and teardown commands do not need at start-up.
 */
const bridgeCli = () => import('./bridge/cli.js');

async function main(argv: string[]): Promise<number> {
  if (argv[0] === '--help' || argv[0] === '-h') {
    process.stdout.write(`${USAGE}\n${(await bridgeCli()).BRIDGE_USAGE}\n`);
    return 0;
  }
  try {
    if (argv[0] === 'bridge') {
      await (await bridgeCli()).bridgeCommand(argv.slice(1));
      return 0;
    }
    const args = parseCli(argv);
    await (args.command === 'masquerade' ? masquerade(args) : down(args));
    return 0;
  } catch (err) {
    const message = (err instanceof Error ? err.message : String(err)).split('\n')[0];
    process.stderr.write(`virt-netsetup: ${message}\n`);
    if (err instanceof BadInputError) {
      if (err.name === 'UsageError') {
        process.stderr.write(`${argv[0] === 'bridge' ? (await bridgeCli()).BRIDGE_USAGE : USAGE}\n`);
      }
      return 2;
    }
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));

// Command line of virt-netsetup, parsed into what the face needs. Usage errors are BadInputError (exit 2).
import { parseArgs } from 'node:util';
import { BadInputError } from './errors.js';
import { parsePorts } from './ports.js';
import type { PortSpec } from './gen/virtlauncher/netsetup/v1/netsetup.js';

export const USAGE = `usage:
  virt-netsetup masquerade --netns NAME --pod-iface eth0 [--ports tcp:80,udp:53] [--ipv6] [--queues N]
                [--tap-uid 107] [--tap-gid 107] [--vm-cidr CIDR] [--vm-ipv6-cidr CIDR]
                [--legacy-migration-ports] [--istio] [--dry-run] [--output json|text]
  virt-netsetup masquerade --netns NAME --pod-iface eth0 --vmi FILE [--iface NAME] [--queues N]
                [--tap-uid 107] [--tap-gid 107] [--legacy-migration-ports] [--dry-run] [--output json|text]
      Phase 1 of the masquerade binding, as KubeVirt's node side does it: bridge k6t-<pod iface> with the
      gateway addresses, the tap, nftables NAT and sysctls. The guest's DHCP configuration is the launcher's
      job (phase 2). --vmi reads a VirtualMachineInstance (JSON) and takes from its interface --iface
      (default: the first masquerade one) what KubeVirt's node side takes: ports, the pod network's
      vmNetworkCIDR and vmIPv6NetworkCIDR, istio from the sidecar.istio.io/inject annotation, and IPv6
      whenever the pod interface has a global IPv6 address. The flags that the VMI decides are refused with --vmi.
  virt-netsetup teardown --netns NAME --pod-iface eth0 [--output json|text]`;

export class UsageError extends BadInputError {}

export interface MasqueradeArgs {
  command: 'masquerade';
  netns: string;
  podIface: string;
  ports: PortSpec[];
  ipv6: boolean;
  queues: number;
  tapUid: number;
  tapGid: number;
  vmCidr: string;
  vmIpv6Cidr: string;
  legacyMigrationPorts: boolean;
  istio: boolean;
  /** Path of a VMI JSON file: the request then comes from it (masqueradeRequestFor). */
  vmi: string | undefined;
  /** The VMI interface to set up; empty: the first masquerade one. */
  iface: string;
  dryRun: boolean;
  output: 'json' | 'text';
}

export interface TeardownArgs {
  command: 'teardown';
  netns: string;
  podIface: string;
  output: 'json' | 'text';
}

export type CliArgs = MasqueradeArgs | TeardownArgs;

function uint(name: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  if (!/^\d{1,10}$/.test(text) || Number(text) > 0xffffffff) throw new UsageError(`--${name} must be a number`);
  return Number(text);
}

/** The flags that a VMI file answers for itself. */
const VMI_DECIDES = ['ports', 'ipv6', 'vm-cidr', 'vm-ipv6-cidr', 'istio'] as const;

export function parseCli(argv: string[]): CliArgs {
  const [command, ...rest] = argv;
  if (command !== 'masquerade' && command !== 'teardown') throw new UsageError(`unknown command "${command ?? ''}"`);
  let values;
  try {
    ({ values } = parseArgs({
      args: rest,
      strict: true,
      options: {
        netns: { type: 'string' },
        'pod-iface': { type: 'string' },
        ports: { type: 'string' },
        ipv6: { type: 'boolean' },
        queues: { type: 'string' },
        'tap-uid': { type: 'string' },
        'tap-gid': { type: 'string' },
        'vm-cidr': { type: 'string' },
        'vm-ipv6-cidr': { type: 'string' },
        'legacy-migration-ports': { type: 'boolean' },
        istio: { type: 'boolean' },
        vmi: { type: 'string' },
        iface: { type: 'string' },
        'dry-run': { type: 'boolean' },
        output: { type: 'string' },
      },
    }));
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message : String(err));
  }
  if (!values.netns) throw new UsageError('--netns is required');
  if (!values['pod-iface']) throw new UsageError('--pod-iface is required');
  const output = values.output ?? 'text';
  if (output !== 'json' && output !== 'text') throw new UsageError('--output must be json or text');
  if (command === 'teardown') return { command, netns: values.netns, podIface: values['pod-iface'], output };
  if (values.vmi !== undefined) {
    const decided = VMI_DECIDES.filter((f) => values[f] !== undefined);
    if (decided.length > 0) throw new UsageError(`--vmi decides ${decided.map((f) => `--${f}`).join(', ')}`);
  } else if (values.iface !== undefined) {
    throw new UsageError('--iface needs --vmi');
  }
  return {
    command,
    netns: values.netns,
    podIface: values['pod-iface'],
    ports: parsePorts(values.ports ?? ''),
    ipv6: values.ipv6 ?? false,
    queues: uint('queues', values.queues, 0),
    // A non-root launcher's QEMU runs as 107:107 (KubeVirt's default).
    tapUid: uint('tap-uid', values['tap-uid'], 107),
    tapGid: uint('tap-gid', values['tap-gid'], 107),
    vmCidr: values['vm-cidr'] ?? '',
    vmIpv6Cidr: values['vm-ipv6-cidr'] ?? '',
    legacyMigrationPorts: values['legacy-migration-ports'] ?? false,
    istio: values.istio ?? false,
    vmi: values.vmi,
    iface: values.iface ?? '',
    dryRun: values['dry-run'] ?? false,
    output,
  };
}

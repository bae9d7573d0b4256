// virt-pod's command line.
import { parseArgs } from 'node:util';
import { HYPERVISOR_CHOICES, type HypervisorChoice } from './hypervisor.js';

export const USAGE = `usage: virt-pod run VMI.yaml [--container-disk VOLUME=IMAGE_FILE]... [--kernel-boot-dir DIR]
                [--hypervisor auto|kvm|emulation] [--console] [--until-lease] [--timeout SECONDS] [--keep] [--verbose]

  --container-disk VOLUME=FILE  the disk image a containerDisk volume's image would carry
  --kernel-boot-dir DIR         where the kernelBoot image's kernelPath/initrdPath are found (DIR/<path> or DIR/<basename>)
  --hypervisor auto|kvm|emulation
                                auto (default): the pod gets /dev/kvm only when KVM really runs a vCPU with the
                                domain's CPU model here, else it emulates (one line says why); kvm: fail when KVM
                                cannot run; emulation: no /dev/kvm in the pod
  --console                     stream the guest's serial console
  --until-lease                 shut down and exit 0 once the guest has its DHCP lease (1 if it never gets one)
  --timeout SECONDS             give up waiting for the lease after this long (default 240)
  --keep                        keep the run-root directory afterwards (logs, disks)
  --verbose                     print every launcher log line, not only the milestones`;

export class UsageError extends Error {
  override name = 'UsageError';
}

export interface RunArgs {
  vmiFile: string;
  containerDisks: Map<string, string>;
  kernelBootDir?: string;
  hypervisor: HypervisorChoice;
  console: boolean;
  untilLease: boolean;
  timeoutSeconds: number;
  keep: boolean;
  verbose: boolean;
}

export function parseRunArgs(argv: string[]): RunArgs {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        'container-disk': { type: 'string', multiple: true },
        'kernel-boot-dir': { type: 'string' },
        hypervisor: { type: 'string', default: 'auto' },
        console: { type: 'boolean', default: false },
        'until-lease': { type: 'boolean', default: false },
        timeout: { type: 'string', default: '240' },
        keep: { type: 'boolean', default: false },
        verbose: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) throw new UsageError('');
  if (positionals[0] !== 'run' || positionals.length !== 2) throw new UsageError('expected: run VMI.yaml');
  const containerDisks = new Map<string, string>();
  for (const spec of values['container-disk'] ?? []) {
    const eq = spec.indexOf('=');
    if (eq <= 0 || eq === spec.length - 1) throw new UsageError(`--container-disk ${spec}: expected VOLUME=IMAGE_FILE`);
    containerDisks.set(spec.slice(0, eq), spec.slice(eq + 1));
  }
  const timeoutSeconds = Number(values.timeout);
  if (!Number.isFinite(timeoutSeconds) || timeoutSeconds <= 0)
    throw new UsageError(`--timeout ${values.timeout}: not a positive number`);
  const hypervisor = values.hypervisor as HypervisorChoice;
  if (!HYPERVISOR_CHOICES.includes(hypervisor))
    throw new UsageError(`--hypervisor ${values.hypervisor}: expected ${HYPERVISOR_CHOICES.join(', ')}`);
  return {
    vmiFile: positionals[1]!,
    containerDisks,
    kernelBootDir: values['kernel-boot-dir'],
    hypervisor,
    console: values.console,
    untilLease: values['until-lease'],
    timeoutSeconds,
    keep: values.keep,
    verbose: values.verbose,
  };
}

// virt-pod's command line.
import { parseArgs } from 'node:util';
import { HYPERVISOR_CHOICES, type HypervisorChoice } from './hypervisor.js';
import { POD_IP_FAMILIES, type PodIpFamily } from './namespaces.js';
import { watchArgs, type WatchArgs } from './args-watch.js';
import { asImageVolumes, type ContainerDiskFiles } from './layout.js';

export const USAGE = `usage: virt-pod run VMI.yaml [--container-disk VOLUME=IMAGE_FILE]... [--kernel-boot-dir DIR] [--image-volumes]
                [--hypervisor auto|kvm|emulation] [--console] [--until-lease] [--timeout SECONDS] [--keep] [--verbose]
                [--watch] [--volume NAME=FILE]... [--pod-ip-family ipv4|ipv6|dual]
                [--non-root | --root]
                [--migrate [--migrate-after SECONDS] [--until-migrated] [--migrate-bandwidth QUANTITY]
                 [--migrate-completion-timeout-per-gib SECONDS] [--migrate-cancel-after SECONDS]]

  --container-disk VOLUME=FILE  the disk image a containerDisk volume's image would carry
  --volume NAME=FILE            the file backing a PVC or DataVolume volume (a hotpluggable one is put at the
                                pod's hotplug path when it appears in the VMI)
  --watch                       while the guest runs, apply each change of VMI.yaml as virt-handler would (hotplug
                                volumes, taps for new NICs, Sync, SyncVirtualMachineCPUs/Memory)
  --kernel-boot-dir DIR         where the kernelBoot image's kernelPath/initrdPath are found (DIR/<path> or DIR/<basename>)
  --image-volumes               the containerDisk and kernelBoot images reach the pod as KubeVirt v1.9's ImageVolume
                                gate renders them: read-only image volumes at /var/run/kubevirt-image-volume/disk_<i>
                                and /var/run/kubevirt-kernel-boot, the launcher with --image-volume
  --hypervisor auto|kvm|emulation
                                auto (default): the pod gets /dev/kvm only when KVM really runs a vCPU with the
                                domain's CPU model here, else it emulates (one line says why); kvm: fail when KVM
                                cannot run; emulation: no /dev/kvm in the pod
  --pod-ip-family ipv4|ipv6|dual
                                the addresses the pod's eth0 gets, as a CNI would give them (default ipv4):
                                masquerade then serves the guest the same families
  --console                     stream the guest's serial console
  --until-lease                 shut down and exit 0 once the guest has its DHCP lease (1 if it never gets one)
  --timeout SECONDS             give up waiting for the lease after this long (default 240)
  --keep                        keep the run-root directory afterwards (logs, disks)
  --verbose                     print every launcher log line, not only the milestones
  --non-root                    (default, as KubeVirt) the pod runs as uid/gid 107 with only NET_BIND_SERVICE, the
                                launcher with --run-as-nonroot (session-mode libvirtd), the tap owned by 107
  --root                        the pod runs as root (KubeVirt's Root feature gate)
  --migrate                     once the guest has its lease, start a second (target) pod and live-migrate the guest
                                into it, playing both virt-handlers (proxies, RPCs); prints
                                "migration: completed in <s> s, downtime <ms> ms" or why it failed
  --migrate-after SECONDS       wait this long after the lease before migrating (default 0)
  --until-migrated              exit 0 once the source pod has ended and the guest ran on the target for 5 s
                                (1 when the migration failed)
  --migrate-bandwidth QUANTITY  MigrationOptions.Bandwidth per second, e.g. 8Mi (default unlimited)
  --migrate-completion-timeout-per-gib SECONDS
                                MigrationOptions.CompletionTimeoutPerGiB (default 800, KubeVirt's)
  --migrate-cancel-after SECONDS
                                send CancelVirtualMachineMigration this long after the migration started`;

export class UsageError extends Error {
  override name = 'UsageError';
}

export interface RunArgs extends WatchArgs {
  vmiFile: string;
  /** By volume name; `imageVolumes` with --image-volumes. */
  containerDisks: ContainerDiskFiles;
  kernelBootDir?: string;
  hypervisor: HypervisorChoice;
  podIpFamily: PodIpFamily;
  console: boolean;
  untilLease: boolean;
  timeoutSeconds: number;
  keep: boolean;
  verbose: boolean;
  /** The pod's user is 107 (KubeVirt's default) rather than root. */
  nonRoot: boolean;
  migration?: MigrateArgs;
}

/** `--migrate*`: what the pod runner asks of the migration it plays. */
export interface MigrateArgs {
  afterSeconds: number;
  untilMigrated: boolean;
  /** MigrationOptions.Bandwidth as given (a quantity per second); undefined = unlimited. */
  bandwidth?: string;
  completionTimeoutPerGiB: number;
  cancelAfterSeconds?: number;
}

export function parseRunArgs(argv: string[]): RunArgs {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        'container-disk': { type: 'string', multiple: true },
        volume: { type: 'string', multiple: true },
        watch: { type: 'boolean', default: false },
        'kernel-boot-dir': { type: 'string' },
        'image-volumes': { type: 'boolean', default: false },
        hypervisor: { type: 'string', default: 'auto' },
        'pod-ip-family': { type: 'string', default: 'ipv4' },
        console: { type: 'boolean', default: false },
        'until-lease': { type: 'boolean', default: false },
        timeout: { type: 'string', default: '240' },
        keep: { type: 'boolean', default: false },
        verbose: { type: 'boolean', default: false },
        'non-root': { type: 'boolean', default: false },
        root: { type: 'boolean', default: false },
        migrate: { type: 'boolean', default: false },
        'migrate-after': { type: 'string' },
        'until-migrated': { type: 'boolean', default: false },
        'migrate-bandwidth': { type: 'string' },
        'migrate-completion-timeout-per-gib': { type: 'string' },
        'migrate-cancel-after': { type: 'string' },
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
  const podIpFamily = values['pod-ip-family'] as PodIpFamily;
  if (!POD_IP_FAMILIES.includes(podIpFamily))
    throw new UsageError(`--pod-ip-family ${values['pod-ip-family']}: expected ${POD_IP_FAMILIES.join(', ')}`);
  if (values.root && values['non-root']) throw new UsageError('--root and --non-root: choose one');
  const migration = migrateArgs(values);
  return {
    ...(migration ? { migration } : {}),
    ...watchArgs(values),
    vmiFile: positionals[1]!,
    containerDisks: values['image-volumes'] ? asImageVolumes(containerDisks) : containerDisks,
    kernelBootDir: values['kernel-boot-dir'],
    hypervisor,
    podIpFamily,
    console: values.console,
    untilLease: values['until-lease'],
    timeoutSeconds,
    keep: values.keep,
    verbose: values.verbose,
    nonRoot: !values.root,
  };
}

function seconds(flag: string, text: string | undefined, fallback: number, allowZero = true): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n) || n < 0 || (!allowZero && n === 0))
    throw new UsageError(`--${flag} ${text}: not a ${allowZero ? 'number >= 0' : 'positive number'}`);
  return n;
}

function migrateArgs(values: Record<string, string | boolean | string[] | undefined>): MigrateArgs | undefined {
  const str = (k: string) => values[k] as string | undefined;
  const given = ['migrate-after', 'migrate-bandwidth', 'migrate-completion-timeout-per-gib', 'migrate-cancel-after']
    .filter((k) => str(k) !== undefined)
    .concat(values['until-migrated'] ? ['until-migrated'] : []);
  if (!values.migrate) {
    if (given.length > 0) throw new UsageError(`--${given[0]} needs --migrate`);
    return undefined;
  }
  if (values['until-lease'])
    throw new UsageError('--until-lease and --migrate exclude each other (use --until-migrated)');
  const bandwidth = str('migrate-bandwidth');
  if (bandwidth !== undefined && !/^\d+(\.\d+)?(Ki|Mi|Gi|k|M|G)?$/.test(bandwidth))
    throw new UsageError(`--migrate-bandwidth ${bandwidth}: expected a quantity such as 8Mi`);
  const cancel = str('migrate-cancel-after');
  return {
    afterSeconds: seconds('migrate-after', str('migrate-after'), 0),
    untilMigrated: values['until-migrated'] === true,
    ...(bandwidth !== undefined ? { bandwidth } : {}),
    completionTimeoutPerGiB: seconds(
      'migrate-completion-timeout-per-gib',
      str('migrate-completion-timeout-per-gib'),
      800,
      false,
    ),
    ...(cancel !== undefined ? { cancelAfterSeconds: seconds('migrate-cancel-after', cancel, 0) } : {}),
  };
}

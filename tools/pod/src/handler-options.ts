// What virt-handler sends beside the VMI with SyncVirtualMachine, SyncMigrationTarget and the CPU/memory syncs:
// one definition for every place virt-pod plays the handler (first sync, --watch re-syncs, migration target).
import type { VirtualMachineInstance } from '@virt-launcher/converter';

type VmiInterface = NonNullable<VirtualMachineInstance['spec']['domain']['devices']['interfaces']>[number];

/** The masquerade interface of the VMI, if any (its domain attachment is a tap, as virt-handler says). */
export function masqueradeInterface(vmi: VirtualMachineInstance): VmiInterface | undefined {
  return vmi.spec?.domain?.devices?.interfaces?.find((i) => i.masquerade);
}

/** The VirtualMachineOptions virt-handler passes for this VMI. */
export function handlerOptions(vmi: VirtualMachineInstance) {
  const masq = masqueradeInterface(vmi);
  return {
    VirtualMachineSMBios: { manufacturer: 'KubeVirt', product: 'None', version: '', sku: '', family: 'KubeVirt' },
    MemBalloonStatsPeriod: 10,
    PreallocatedVolumes: [],
    topology: undefined,
    DisksInfo: {},
    ExpandDisksEnabled: false,
    clusterConfig: undefined,
    interfaceDomainAttachment: masq ? { [masq.name]: 'tap' } : {},
    interfaceMigration: {},
    pluginsJson: Buffer.alloc(0),
    GraceHostDeviceAliases: [],
  };
}

/** The request of SyncVirtualMachine (and the CPU/memory syncs, which take the same message). */
export function handlerSyncRequest(vmi: VirtualMachineInstance) {
  return { vmi: { vmiJson: Buffer.from(JSON.stringify(vmi)) }, options: handlerOptions(vmi) };
}

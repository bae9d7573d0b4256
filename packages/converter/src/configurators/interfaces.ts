// <interface> devices for tap-attached bindings (masquerade, bridge, tap plugins) and passt. SR-IOV
// NICs arrive as host devices; plugins attached some other way are not the domain's business.
import type { DomainInterface } from '../domain/types.js';
import { ConversionError, quote } from '../errors.js';
import type { Interface } from '../vmi/types.js';
import { pciAddress, userAlias, type Configurator } from './configurator.js';
import { passtPortForwards } from './passt-ports.js';

const MAX_QUEUES = 256;

/** How the NIC reaches the domain: the context says, else masquerade and bridge use a tap. */
function attachment(iface: Interface, map: Record<string, string>): string | undefined {
  const given = map[iface.name];
  if (given) return given;
  if (iface.masquerade || iface.bridge) return 'tap';
  return undefined;
}

export const interfaces: Configurator = {
  name: 'interfaces',
  configure(vmi, domain, ctx) {
    const networks = vmi.spec.networks ?? [];
    const specIfaces = vmi.spec.domain.devices.interfaces ?? [];
    specIfaces.forEach((iface, i) => {
      if (iface.state === 'absent') return;
      const field = `spec.domain.devices.interfaces[${i}]`;
      if (!networks.some((n) => n.name === iface.name)) {
        throw new ConversionError(`${field}.name`, iface.name, `failed to find network ${iface.name}`);
      }
      if (iface.sriov) return;
      // passtBinding is the current API; passt is the binding KubeVirt 1.3 removed, read the same way.
      const passt = iface.passtBinding !== undefined || iface.passt !== undefined;
      const how = attachment(iface, ctx.raw.domainAttachmentByInterfaceName);
      if (!passt && how !== 'tap') return;
      const modelName = iface.model || 'virtio';
      const out: DomainInterface = {
        type: passt ? 'vhostuser' : 'ethernet',
        model: { type: modelName === 'virtio' ? ctx.virtioModel : modelName },
        alias: userAlias(iface.name),
      };
      const multiqueue = vmi.spec.domain.devices.networkInterfaceMultiqueue === true && modelName === 'virtio';
      if (modelName === 'virtio' && (multiqueue || ctx.launchSecurity)) {
        out.driver = {
          name: 'vhost',
          queues: multiqueue ? Math.min(ctx.vcpus, MAX_QUEUES) : undefined,
          iommu: ctx.launchSecurity ? 'on' : undefined,
        };
      }
      if (iface.pciAddress) {
        out.address = pciAddress(iface.pciAddress, `${field}.pciAddress`, (f, v) => {
          throw new ConversionError(f, v, `${quote(v)} is not a PCI address`);
        });
      }
      if (iface.acpiIndex) out.acpiIndex = iface.acpiIndex;
      // Phase-2 facts from the launcher's network setup: tap name, pod MAC and MTU.
      const pod = ctx.raw.podInterfaces[iface.name];
      out.mac = iface.macAddress || pod?.mac || undefined;
      if (passt) {
        // passt serves the pod interface virt-handler names in the status (eth0, or a user-defined
        // network's link); guessing one would attach the NIC to the wrong link, so its absence is refused.
        const podIface = vmi.status?.interfaces?.find((s) => s.name === iface.name)?.podInterfaceName;
        if (!podIface) {
          throw new ConversionError(
            'status.interfaces',
            iface.name,
            `no podInterfaceName for passt interface ${quote(iface.name)}: virt-handler reports it in the VMI status`,
          );
        }
        out.source = { dev: podIface };
        out.backend = { type: 'passt', logFile: `${ctx.paths.kubevirtRunDir}/passt.log` };
        out.portForwards = passtPortForwards(vmi, iface, field);
      } else {
        if (pod?.tapName) out.target = { dev: pod.tapName, managed: 'no' };
        if (pod?.mtu) out.mtu = pod.mtu;
        // Boot order, ROM off and link state are tap-attachment settings in KubeVirt: a passt NIC has none.
        if (iface.bootOrder) out.bootOrder = iface.bootOrder;
        if (ctx.arch.romTuning && (!iface.bootOrder || ctx.launchSecurity)) out.rom = { enabled: 'no' };
        if (iface.state === 'down') out.link = { state: 'down' };
      }
      domain.devices.interfaces.push(out);
    });
  },
};

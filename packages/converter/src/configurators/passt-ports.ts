// The port forwards of a passt NIC: the ports the interface lists (TCP unless it says UDP), or every
// port of both protocols when it lists none. With Istio's sidecar injected, the sidecar's own ports are
// excluded so that passt does not take them from the proxy.
import type { DomainInterface } from '../domain/types.js';
import { ConversionError, quote } from '../errors.js';
import type { Interface, VirtualMachineInstance } from '../vmi/types.js';

type PortForward = NonNullable<DomainInterface['portForwards']>[number];
type Range = PortForward['ranges'][number];

export const ISTIO_INJECT_ANNOTATION = 'sidecar.istio.io/inject';
/** The ports an Istio sidecar (Envoy) listens on in the pod. */
export const ISTIO_RESERVED_PORTS = [15000, 15001, 15004, 15006, 15008, 15009, 15020, 15021, 15053, 15090];

export function passtPortForwards(vmi: VirtualMachineInstance, iface: Interface, field: string): PortForward[] {
  const tcp: Range[] = [];
  const udp: Range[] = [];
  if (vmi.metadata.annotations?.[ISTIO_INJECT_ANNOTATION]?.toLowerCase() === 'true') {
    for (const start of ISTIO_RESERVED_PORTS) tcp.push({ start, exclude: true });
  }
  (iface.ports ?? []).forEach((port, i) => {
    const protocol = (port.protocol ?? '').toLowerCase();
    if (protocol === '' || protocol === 'tcp') tcp.push({ start: port.port });
    else if (protocol === 'udp') udp.push({ start: port.port });
    // KubeVirt logs and skips other protocols; a forward the VMI asked for must not vanish silently.
    else
      throw new ConversionError(
        `${field}.ports[${i}].protocol`,
        port.protocol,
        `${quote(port.protocol ?? '')} is not TCP or UDP`,
      );
  });
  if (tcp.length === 0 && udp.length === 0) {
    return [
      { proto: 'tcp', ranges: [] },
      { proto: 'udp', ranges: [] },
    ];
  }
  const out: PortForward[] = [];
  if (tcp.length > 0) out.push({ proto: 'tcp', ranges: tcp });
  if (udp.length > 0) out.push({ proto: 'udp', ranges: udp });
  return out;
}

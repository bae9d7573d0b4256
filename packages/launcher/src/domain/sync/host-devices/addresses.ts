// The shapes of the addresses device plugins hand the pod. Each one ends up in the domain XML and, through
// libvirt, in a sysfs path (/sys/bus/pci/devices/<addr>, /sys/bus/mdev/devices/<uuid>), so anything that is not
// exactly the expected shape is refused here rather than passed on.

/** domain:bus:slot.function, as the PCI device plugins and Multus write it (e.g. `0000:81:01.0`). */
const PCI_ADDRESS = /^[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]$/;

/** A mediated device is named by its UUID (8-4-4-4-12 hex digits). */
const MDEV_UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** The USB device plugin writes `<bus>:<device number>` in decimal. */
const USB_ADDRESS = /^\d{1,3}:\d{1,3}$/;

export const isPciAddress = (value: string): boolean => PCI_ADDRESS.test(value);
export const isMdevUuid = (value: string): boolean => MDEV_UUID.test(value);
export const isUsbAddress = (value: string): boolean => USB_ADDRESS.test(value);

/**
 * A Kubernetes extended resource name (`vendor.example/device-name`): only these characters can form the
 * environment variable the device plugin sets; anything else cannot have come from a plugin.
 */
const RESOURCE_NAME = /^[A-Za-z0-9]([A-Za-z0-9._-]{0,252}\/)?[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

export const isResourceName = (value: string): boolean => RESOURCE_NAME.test(value);

/** The prefixes the device plugins (through the kubelet) use for the variables they set in the pod. */
export const PCI_PREFIX = 'PCI_RESOURCE';
export const MDEV_PREFIX = 'MDEV_PCI_RESOURCE';
export const USB_PREFIX = 'USB_RESOURCE';

/** `nvidia.com/GP102GL_Tesla_P40` -> `PCI_RESOURCE_NVIDIA_COM_GP102GL_TESLA_P40`: upper case, `/` and `.` to `_`. */
export function resourceEnvVar(prefix: string, resourceName: string): string {
  return `${prefix}_${resourceName.toUpperCase().replace(/[/.]/g, '_')}`;
}

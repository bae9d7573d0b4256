// Name rules of KubeVirt's admission webhooks, checked at the boundary because names become paths
// (a disk's overlay, an empty disk's image, a config ISO) and must never climb out of their directory.
//   disks: Kubernetes DNS-1123 labels (KubeVirt checks them as it checks container names); every
//          volume must match a disk or filesystem name, so volumes follow the same rule;
//   interfaces: letters, digits, '-' and '_' (KubeVirt's network admitter); every network must match
//          an interface name, so networks follow the same rule;
//   metadata.name: a DNS-1123 subdomain, metadata.namespace: a DNS-1123 label (Kubernetes' object rules).

import { DNS1123_SUBDOMAIN_MAX } from '@virt-launcher/shared';

export const INTERFACE_NAME = /^[A-Za-z0-9_-]+$/;

/**
 * Without admission (KubeVirt's own converter tests feed VMIs that never went through it, with names like
 * `pvc_block_test`), a name must still be one safe path component: no '/', not '.' or '..'.
 */
export const PATH_COMPONENT = /^[A-Za-z0-9_.+-]+$/;

export function isPathComponent(name: string): boolean {
  return name.length <= DNS1123_SUBDOMAIN_MAX && PATH_COMPONENT.test(name) && name !== '.' && name !== '..';
}

export function isInterfaceName(name: string): boolean {
  return INTERFACE_NAME.test(name);
}

export const LABEL_RULE =
  "is not a DNS-1123 label (lowercase letters, digits and '-', starting and ending with a letter or digit, at most 63 characters)";
export const SUBDOMAIN_RULE = "is not a DNS-1123 subdomain (DNS-1123 labels joined by '.', at most 253 characters)";
export const PATH_COMPONENT_RULE =
  "is not a safe file name (letters, digits, '_', '.', '+' and '-', not '.' or '..', at most 253 characters)";
export const INTERFACE_RULE = "is not a valid interface name (letters, digits, '-' and '_' only)";

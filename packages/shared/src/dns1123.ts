// Kubernetes' DNS-1123 name rules. Object names, namespaces, disk and volume names become file and directory
// names in the pod (overlays, empty disks, config ISOs), so every package checks them with these same rules.

export const DNS1123_LABEL_MAX = 63;
export const DNS1123_SUBDOMAIN_MAX = 253;

const LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/**
 * Why `value` is not a DNS-1123 label (lower-case letters, digits and '-', starting and ending with a letter
 * or digit, 1 to 63 characters), or undefined when it is one.
 */
export function dns1123LabelProblem(value: string): string | undefined {
  if (value.length === 0) return 'must not be empty';
  if (value.length > DNS1123_LABEL_MAX) {
    return `must be at most ${DNS1123_LABEL_MAX} characters (has ${value.length})`;
  }
  if (!LABEL.test(value)) {
    return "must be a DNS-1123 label: lower-case letters, digits and '-', starting and ending with a letter or digit";
  }
  return undefined;
}

/**
 * Why `value` is not a DNS-1123 subdomain (DNS-1123 labels joined by '.', at most 253 characters), or undefined.
 * A label inside a subdomain is not held to the 63-character label limit: Kubernetes checks only the total.
 */
export function dns1123SubdomainProblem(value: string): string | undefined {
  if (value.length === 0) return 'must not be empty';
  if (value.length > DNS1123_SUBDOMAIN_MAX) {
    return `must be at most ${DNS1123_SUBDOMAIN_MAX} characters (has ${value.length})`;
  }
  if (!value.split('.').every((part) => LABEL.test(part))) {
    return "must be a DNS-1123 subdomain: DNS-1123 labels (lower-case letters, digits and '-') joined by '.'";
  }
  return undefined;
}

export function isDns1123Label(value: string): boolean {
  return dns1123LabelProblem(value) === undefined;
}

export function isDns1123Subdomain(value: string): boolean {
  return dns1123SubdomainProblem(value) === undefined;
}

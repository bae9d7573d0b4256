// Names that become path components. Checked before any file is touched so that no request can reach
// outside its directory ("../x", "/abs", "a/b", NUL) or create names Kubernetes itself would never produce.
import { InvalidObjectNameError, InvalidVolumeNameError } from './errors.js';

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const MAX_LABEL = 63;
const MAX_SUBDOMAIN = 253;

/** Returns why `value` is not a DNS-1123 label, or undefined when it is one. */
function labelProblem(value: string): string | undefined {
  if (value.length === 0) return 'must not be empty';
  if (value.length > MAX_LABEL) return `must be at most ${MAX_LABEL} characters (has ${value.length})`;
  if (!DNS1123_LABEL.test(value)) {
    return 'must be a DNS-1123 label: lower-case letters, digits and "-", starting and ending with a letter or digit';
  }
  return undefined;
}

export function validateVolumeName(volume: string): void {
  const problem = labelProblem(volume);
  if (problem !== undefined) throw new InvalidVolumeNameError(volume, problem);
}

export function validateNamespace(namespace: string): void {
  const problem = labelProblem(namespace);
  if (problem !== undefined) throw new InvalidObjectNameError('namespace', namespace, problem);
}

/** VMI names are DNS-1123 subdomains: dot-separated labels, so "." and ".." can never be one. */
export function validateObjectName(name: string): void {
  if (name.length === 0) throw new InvalidObjectNameError('name', name, 'must not be empty');
  if (name.length > MAX_SUBDOMAIN) {
    throw new InvalidObjectNameError('name', name, `must be at most ${MAX_SUBDOMAIN} characters`);
  }
  for (const part of name.split('.')) {
    const problem = labelProblem(part);
    if (problem !== undefined) {
      throw new InvalidObjectNameError('name', name, 'must be a DNS-1123 subdomain (dot-separated DNS-1123 labels)');
    }
  }
}

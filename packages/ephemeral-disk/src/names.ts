// Names that become path components. Checked before any file is touched so that no request can reach
// outside its directory ("../x", "/abs", "a/b", NUL) or create names Kubernetes itself would never produce.
import { dns1123LabelProblem, dns1123SubdomainProblem } from '@virt-launcher/shared';
import { InvalidObjectNameError, InvalidVolumeNameError } from './errors.js';

export function validateVolumeName(volume: string): void {
  const problem = dns1123LabelProblem(volume);
  if (problem !== undefined) throw new InvalidVolumeNameError(volume, problem);
}

export function validateNamespace(namespace: string): void {
  const problem = dns1123LabelProblem(namespace);
  if (problem !== undefined) throw new InvalidObjectNameError('namespace', namespace, problem);
}

/** VMI names are DNS-1123 subdomains: dot-separated labels, so "." and ".." can never be one. */
export function validateObjectName(name: string): void {
  const problem = dns1123SubdomainProblem(name);
  if (problem !== undefined) throw new InvalidObjectNameError('name', name, problem);
}

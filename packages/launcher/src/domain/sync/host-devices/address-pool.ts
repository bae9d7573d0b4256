// The addresses a device plugin allocated to this pod, one environment variable per resource name:
// `PCI_RESOURCE_<NAME>=0000:81:01.0,0000:81:01.1`. Each device the VMI asks for takes the first address left
// for its resource; an address taken is taken for every resource (two resource names may share a device), so no
// address is ever handed out twice.
import { resourceEnvVar } from './addresses.js';

export type Env = Readonly<Record<string, string | undefined>>;

export type PopResult =
  | { kind: 'address'; address: string }
  /** The variable is not set at all: this plugin did not allocate the resource. */
  | { kind: 'unset' }
  /** The variable is set but every address in it is already taken (or it is empty). */
  | { kind: 'exhausted' };

export class AddressPool {
  private readonly byResource = new Map<string, string[]>();

  constructor(
    readonly prefix: string,
    resources: Iterable<string>,
    env: Env,
  ) {
    for (const resource of resources) {
      const value = env[resourceEnvVar(prefix, resource)];
      if (value === undefined) continue;
      // Plugins that append leave a trailing comma; an empty value means nothing was allocated.
      const list = value.endsWith(',') ? value.slice(0, -1) : value;
      this.byResource.set(resource, list === '' ? [] : list.split(','));
    }
  }

  envVar(resource: string): string {
    return resourceEnvVar(this.prefix, resource);
  }

  pop(resource: string): PopResult {
    const list = this.byResource.get(resource);
    if (list === undefined) return { kind: 'unset' };
    const address = list[0];
    if (address === undefined) return { kind: 'exhausted' };
    for (const [name, addresses] of this.byResource) {
      this.byResource.set(
        name,
        addresses.filter((a) => a !== address),
      );
    }
    return { kind: 'address', address };
  }
}

// The one error every host-device lookup throws: it names the VMI field that asked for the device, the
// environment variable (or file) that should have supplied it, and the value found there, so a wrong device-plugin
// allocation shows up in SyncVMI's reply instead of as a domain missing a device.

export class HostDeviceError extends Error {
  constructor(
    /** The VMI field, e.g. `spec.domain.devices.gpus[0]`. */
    readonly field: string,
    /** Where the address should come from: an environment variable name or a file path. */
    readonly source: string,
    /** The offending value as found (empty when nothing was found). */
    readonly value: string,
    reason: string,
  ) {
    super(`${field}: ${reason} (${source}${value ? ` = ${JSON.stringify(value)}` : ''})`);
    this.name = 'HostDeviceError';
  }
}

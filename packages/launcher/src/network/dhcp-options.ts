// The VMI interface's dhcpOptions on top of the guest's configuration, for both bindings. As in KubeVirt
// (pkg/network/dhcp/server/server.go prepareDHCPOptions), the launcher takes them from the VMI it was asked to
// run: options 66 (TFTP server), 67 (boot file), 42 (NTP servers, IPv4 only: KubeVirt's server refuses to start
// on anything else) and the private options 224..254 (others are dropped, as KubeVirt drops them).
import type { DhcpServerConfig } from '@virt-launcher/contracts';
import { isIPv4 } from 'node:net';
import { InvalidRequestError } from '../errors.js';

/** spec.domain.devices.interfaces[].dhcpOptions as the VMI spells it. */
export interface VmiDhcpOptions {
  bootFileName?: string;
  tftpServerName?: string;
  ntpServers?: string[];
  privateOptions?: Array<{ option: number; value: string }>;
}

export function dhcpOptionsOf(iface: object): VmiDhcpOptions | undefined {
  const o = (iface as { dhcpOptions?: unknown }).dhcpOptions;
  return o !== null && typeof o === 'object' ? (o as VmiDhcpOptions) : undefined;
}

function refuse(field: string, value: unknown, why: string): never {
  throw new InvalidRequestError(`${field} ${JSON.stringify(value)}: ${why}`, field);
}

const optionalString = (field: string, v: unknown): string =>
  v === undefined || v === null ? '' : typeof v === 'string' ? v : refuse(field, v, 'must be a string');

function listOf(field: string, v: unknown): unknown[] {
  if (v === undefined || v === null) return [];
  return Array.isArray(v) ? v : refuse(field, v, 'must be a list');
}

/** The options of interface `ifaceName`, checked field by field; a hostile VMI gets the field named. */
function checkedOptions(ifaceName: string, options: VmiDhcpOptions) {
  const at = `spec.domain.devices.interfaces[${ifaceName}].dhcpOptions`;
  const ntpServers = listOf(`${at}.ntpServers`, options.ntpServers).map((s, n) =>
    typeof s === 'string' && isIPv4(s) ? s : refuse(`${at}.ntpServers[${n}]`, s, 'not an IPv4 address'),
  );
  const privateOptions = listOf(`${at}.privateOptions`, options.privateOptions).map((p, n) => {
    const field = `${at}.privateOptions[${n}]`;
    const { option, value } = (p ?? {}) as { option?: unknown; value?: unknown };
    if (typeof option !== 'number' || !Number.isInteger(option)) refuse(`${field}.option`, option, 'not a number');
    return { code: option, value: Buffer.from(optionalString(`${field}.value`, value), 'utf8') };
  });
  return {
    bootfileName: optionalString(`${at}.bootFileName`, options.bootFileName),
    tftpServerName: optionalString(`${at}.tftpServerName`, options.tftpServerName),
    ntpServers,
    privateOptions: privateOptions.filter((p) => p.code >= 224 && p.code <= 254),
  };
}

export function withVmiDhcpOptions(
  config: DhcpServerConfig,
  options: VmiDhcpOptions | undefined,
  ifaceName = '',
): DhcpServerConfig {
  if (!options || !config.v4) return config;
  return { ...config, v4: { ...config.v4, ...checkedOptions(ifaceName, options) } };
}

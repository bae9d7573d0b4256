// The VMI interface's dhcpOptions on top of the cached configuration. As in KubeVirt, the launcher takes them
// from the VMI it was asked to run, not from the node side's cache: a cache written without them (or by an
// older node side) still serves what the VMI says. Options 42, 66, 67 and 224..254 of DHCPv4 only.
import type { DhcpServerConfig } from '@virt-launcher/contracts';

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

export function withVmiDhcpOptions(config: DhcpServerConfig, options: VmiDhcpOptions | undefined): DhcpServerConfig {
  if (!options || !config.v4) return config;
  return {
    ...config,
    v4: {
      ...config.v4,
      bootfileName: options.bootFileName ?? '',
      tftpServerName: options.tftpServerName ?? '',
      ntpServers: options.ntpServers ?? [],
      // The value is the string's bytes; a code outside 224..254 is dropped by the server with a warning.
      privateOptions: (options.privateOptions ?? []).map((p) => ({
        code: p.option,
        value: Buffer.from(String(p.value), 'utf8'),
      })),
    },
  };
}

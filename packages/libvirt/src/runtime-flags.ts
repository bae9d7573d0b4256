// libvirt flag bits for the calls that change a running domain (libvirt-domain.h, libvirt 9.0).

/** virDomainVcpuFlags, for setVcpus (LIVE/CONFIG share virDomainModificationImpact's values). */
export const VcpuFlags = {
  CURRENT: 0,
  LIVE: 1,
  CONFIG: 2,
  MAXIMUM: 4,
  GUEST: 8,
  HOTPLUGGABLE: 16,
} as const;

/** virDomainBlockResizeFlags: BYTES takes the size in bytes instead of KiB. */
export const BlockResizeFlags = { BYTES: 1 } as const;

// virDomainGuestInfoTypes as plain numbers: the binding is loaded lazily, so its GuestInfoTypes constant is not
// imported at start-up (only types are); these are libvirt's stable ABI values (libvirt-domain.h).
export const GuestInfoTypesValue = {
  USERS: 1 << 0,
  OS: 1 << 1,
  TIMEZONE: 1 << 2,
  HOSTNAME: 1 << 3,
  FILESYSTEM: 1 << 4,
  DISKS: 1 << 5,
  INTERFACES: 1 << 6,
} as const;

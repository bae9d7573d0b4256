// The face of @virt-launcher/dhcp: everything other packages may use is exported here.
export {};

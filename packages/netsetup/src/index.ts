// The face of @virt-launcher/netsetup: everything other packages may use is exported here.
export {};

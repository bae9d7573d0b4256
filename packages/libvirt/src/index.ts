// The face of @virt-launcher/libvirt: everything other packages may use is exported here.
export {};

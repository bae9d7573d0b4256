// The face of @virt-launcher/monitor: everything other packages may use is exported here.
export {};

// The face of @virt-launcher/launcher: everything other packages may use is exported here.
export {};

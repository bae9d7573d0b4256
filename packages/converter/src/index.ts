// The face of @virt-launcher/converter: everything other packages may use is exported here.
export {};

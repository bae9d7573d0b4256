// The face of @virt-launcher/ephemeral-disk: everything other packages may use is exported here.
export {};

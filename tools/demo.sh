#!/usr/bin/env bash
# npm run demo: boots the demo guest (kernel + busybox initramfs built from Debian packages) in a one-machine pod:
# network namespaces, masquerade, virt-launcher-monitor → virt-launcher → libvirtd → QEMU/TCG, our DHCP server.
# Extra arguments go to `virt-pod run` (e.g. --until-lease to exit 0 once the guest has its lease, or
# --hypervisor kvm|emulation; the default, auto, uses KVM only when it really runs a vCPU here).
# `npm run demo -- --migrate` then live-migrates the running guest into a second pod on this machine (its uptime
# line goes on; add --until-migrated to end 5 s after it ran there).
set -euo pipefail
cd "$(dirname "$0")/.."
guest_dir=$PWD/.cache/demo-guest
bash tools/demo-guest/build.sh "$guest_dir" >&2
exec node tools/pod/dist/cli.js run examples/vmi-demo.yaml \
  --container-disk "rootdisk=$guest_dir/containerdisk.img" \
  --kernel-boot-dir "$guest_dir" \
  --console "$@"

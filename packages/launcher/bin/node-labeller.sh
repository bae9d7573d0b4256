#!/bin/sh
# node-labeller.sh: what virt-handler's init container runs from the launcher image (`/bin/sh -c node-labeller.sh`,
# privileged, as root; KubeVirt v1.9 pkg/virt-operator/resource/generate/components/daemonsets.go). It asks this
# node's libvirt what it can run and leaves the answers where virt-handler's node labeller reads them
# (pkg/virt-handler/node-labeller, cmd/virt-handler/virt-handler.go), in the directory shared with virt-handler:
#   virsh_domcapabilities.xml      CPU modes and models, SEV/TDX/s390-pv features (domcapabilities)
#   supported_features.xml         the host CPU's features as a baseline (x86_64 and s390x)
#   capabilities.xml               host CPU counter, NUMA, guests and their machine types (capabilities)
#   virsh_domcapabilities_<arch>.xml  the other architecture's emulator, only when this node has one
# Environment: HYPERVISOR_DEVICE (default kvm) names the device under /dev, PREFERRED_VIRTTYPE (default kvm) the
# domain type to ask about when that device exists; without it the answers are for emulation (qemu). Both unset or
# either empty means KVM's values for both, as KubeVirt does. NODE_LABELLER_DIR overrides the output directory.
# It starts the pod's QEMU daemon for the questions (virtqemud, or libvirtd where Debian has only that) and stops it
# again. A file is renamed into place only once complete: the labeller never parses half an answer.
set -eu

case ${1:-} in
  -h | --help)
    # Any argument but these is ignored, as virt-handler passes none; help must never start a daemon.
    cat <<'USAGE'
usage: node-labeller.sh   (as virt-handler's init container runs it: /bin/sh -c node-labeller.sh, as root)
  Asks this node's libvirt what it can run and writes virsh_domcapabilities.xml, supported_features.xml and
  capabilities.xml (and the other architecture's domcapabilities when its emulator answers) under
  ${NODE_LABELLER_DIR:-/var/lib/kubevirt-node-labeller}, for virt-handler's node labeller.
  Environment: HYPERVISOR_DEVICE (default kvm), PREFERRED_VIRTTYPE (default kvm), NODE_LABELLER_DIR.
USAGE
    exit 0
    ;;
esac

out=${NODE_LABELLER_DIR:-/var/lib/kubevirt-node-labeller}
device=${HYPERVISOR_DEVICE:-}
preferred=${PREFERRED_VIRTTYPE:-}
say() { printf 'node-labeller: %s\n' "$*" >&2; }

if [ -z "$device" ] || [ -z "$preferred" ]; then
  say "HYPERVISOR_DEVICE='$device' PREFERRED_VIRTTYPE='$preferred': using kvm for both"
  device=kvm
  preferred=kvm
fi

arch=$(uname -m)
case $arch in
  x86_64) machine=q35 other_arch=aarch64 other_machine=virt ;;
  aarch64) machine=virt other_arch=x86_64 other_machine=q35 ;;
  s390x) machine=s390-ccw-virtio other_arch= other_machine= ;;
  *)
    say "no labels for architecture $arch"
    exit 0
    ;;
esac

# The init container's /dev may lack the device the node's kernel has (a misc device: major 10, its minor listed in
# /proc/misc): make the node, then let QEMU, which runs as another user, open it.
dev=/dev/$device
minor=$(awk -v name="$device" '$2 == name { print $1 }' /proc/misc 2>/dev/null || true)
if [ ! -e "$dev" ] && [ -n "$minor" ]; then
  mknod "$dev" c 10 "$minor"
fi
virttype=qemu
if [ -e "$dev" ]; then
  chmod o+rw "$dev"
  virttype=$preferred
fi
# QEMU reads SEV's capabilities from this device, for which it needs write access too.
if [ -e /dev/sev ]; then chmod o+rw /dev/sev; fi
say "arch $arch, machine $machine, virttype $virttype"

if command -v virtqemud >/dev/null 2>&1; then
  daemon=virtqemud socket=/var/run/libvirt/virtqemud-sock
else
  daemon=libvirtd socket=/var/run/libvirt/libvirt-sock
fi
pidfile=/var/run/libvirt/node-labeller-$daemon.pid
mkdir -p /var/run/libvirt "$out"
# Stops the daemon and waits (up to 5 s) until it is gone, so nothing of this run outlives the script.
stop_daemon() {
  pid=$(cat "$pidfile" 2>/dev/null || true)
  if [ -n "$pid" ] && kill "$pid" 2>/dev/null; then
    tries=50
    while kill -0 "$pid" 2>/dev/null && [ "$tries" -gt 0 ]; do
      sleep 0.1
      tries=$((tries - 1))
    done
  fi
  rm -f "$out"/.node-labeller.*
}
trap stop_daemon EXIT
# -d returns once the daemon listens.
"$daemon" -d --pid-file "$pidfile"
export LIBVIRT_DEFAULT_URI="qemu+unix:///system?socket=$socket"

# Writes the output of a virsh command to $out/$1, complete or not at all.
save() {
  name=$1
  shift
  tmp=$out/.node-labeller.$name
  "$@" >"$tmp"
  mv "$tmp" "$out/$name"
}

# Flags newer libvirt has: the full feature list of each CPU model, and only the features the host can give.
help=$(virsh domcapabilities --help 2>&1 || true)
expand= supported=
case $help in *--expand-cpu-features*) expand=--expand-cpu-features ;; esac
case $help in *--supported-cpu-features*) supported=--supported-cpu-features ;; esac
domcaps="--machine $machine --arch $arch --virttype $virttype"

# shellcheck disable=SC2086 # word splitting of the flag lists is meant
save virsh_domcapabilities.xml virsh domcapabilities $domcaps $expand
if [ "$arch" = x86_64 ] || [ "$arch" = s390x ]; then
  baseline_input=$out/.node-labeller.baseline-input
  # shellcheck disable=SC2086
  virsh domcapabilities $domcaps $expand $supported >"$baseline_input"
  # shellcheck disable=SC2086
  save supported_features.xml virsh hypervisor-cpu-baseline --features "$baseline_input" $domcaps
fi
save capabilities.xml virsh capabilities

# Another architecture's guests can run here only under emulation, with its QEMU installed: the labeller adds that
# architecture's label when its file exists and parses.
if [ -n "$other_arch" ]; then
  if virsh domcapabilities --machine "$other_machine" --arch "$other_arch" --virttype qemu \
    >"$out/.node-labeller.cross" 2>/dev/null; then
    mv "$out/.node-labeller.cross" "$out/virsh_domcapabilities_$other_arch.xml"
  else
    rm -f "$out/virsh_domcapabilities_$other_arch.xml"
    say "no $other_arch emulator: no cross-architecture file"
  fi
fi
say "wrote $(ls "$out" | tr '\n' ' ')"

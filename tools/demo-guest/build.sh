#!/usr/bin/env bash
# Builds the tiny demo guest used by the launcher and pod-runner tests, from Debian packages only:
#   OUT_DIR/vmlinuz           the kernel of the package linux-image-cloud-amd64 depends on
#   OUT_DIR/initramfs.gz      static busybox + virtio/isofs/button modules + guest/init (newc cpio, gzip)
#   OUT_DIR/containerdisk.img a 1 MiB raw disk whose first line is a known marker (stands in for a container disk)
#   OUT_DIR/guest.env         facts about the build (kernel version, marker, cmdline) for tests to read
#
#   build.sh [OUT_DIR]        default OUT_DIR = <repo>/.cache/demo-guest
#
# Nothing is installed: the .deb files are fetched with `apt-get download` and unpacked with `dpkg -x`
# (busybox-static conflicts with the host's busybox). A rebuild is skipped when every output is newer than
# this script and the files in guest/.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
out=$(realpath -m "${1:-$repo/.cache/demo-guest}")
outputs=(vmlinuz initramfs.gz containerdisk.img guest.env)
inputs=("$here/build.sh" "$here"/guest/*)

# The order matters: each module may only use symbols of the ones before it (no modprobe in the guest).
MODULES=(virtio_ring virtio virtio_pci_modern_dev virtio_pci_legacy_dev virtio_pci failover net_failover virtio_net
  virtio_blk cdrom isofs button evdev virtio_mem)
MARKER=vlt-demo-containerdisk-1
CMDLINE='console=ttyS0 quiet panic=-1 rdinit=/init'

log() { echo "demo-guest: $*" >&2; }

up_to_date() {
  local o i
  for o in "${outputs[@]}"; do
    [[ -f "$out/$o" ]] || return 1
    for i in "${inputs[@]}"; do [[ "$out/$o" -nt "$i" ]] || return 1; done
  done
}

mkdir -p "$out"
# Several test suites may ask for the guest at once: one builds, the others wait and then find it fresh.
exec 9>"$out/.lock"
flock 9
if up_to_date; then
  log "up to date in $out"
  exit 0
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/vlt-demo-guest.XXXXXX")
trap 'rm -rf "$work"' EXIT

# --- 1. fetch the two packages (cached beside the outputs so a rebuild needs no network) -----------------
if ! compgen -G '/var/lib/apt/lists/*_Packages*' >/dev/null; then
  log "apt lists are empty, running apt-get update"
  apt-get update -qq
fi
kernel_pkg=$(apt-cache depends linux-image-cloud-amd64 | awk '/Depends: linux-image-/ { print $2; exit }')
[[ -n "$kernel_pkg" ]] || { log "cannot tell which kernel linux-image-cloud-amd64 depends on"; exit 1; }
debs="$out/debs"
mkdir -p "$debs"
fetch() {
  local pkg=$1 version file
  version=$(apt-cache policy "$pkg" | awk '/Candidate:/ { print $2 }')
  # apt-get download names files pkg_version_arch.deb with ':' of the epoch escaped as %3a.
  file="$debs/${pkg}_${version//:/%3a}_amd64.deb"
  if [[ ! -f "$file" ]]; then
    log "downloading $pkg $version"
    (cd "$debs" && apt-get download -q "$pkg" 2>&1 | grep -v '^W: Download is performed unsandboxed' >&2 || true)
  fi
  [[ -f "$file" ]] || { log "download of $pkg failed"; exit 1; }
  echo "$file"
}
kernel_deb=$(fetch "$kernel_pkg")
busybox_deb=$(fetch busybox-static)

# --- 2. unpack, never install ---------------------------------------------------------------------------
dpkg -x "$kernel_deb" "$work/kernel"
dpkg -x "$busybox_deb" "$work/busybox"
vmlinuz=$(find "$work/kernel/boot" -name 'vmlinuz-*' | head -n 1)
kver=${vmlinuz##*/vmlinuz-}
bb="$work/busybox/bin/busybox"
[[ -x "$bb" ]] || { log "no busybox in $busybox_deb"; exit 1; }

# --- 3. initramfs tree ----------------------------------------------------------------------------------
root="$work/root"
mkdir -p "$root"/{bin,sbin,dev,proc,sys,tmp,mnt,etc/acpi/PWRF,lib/modules,root}
cp "$bb" "$root/bin/busybox"
for applet in $("$bb" --list); do
  [[ "$applet" == busybox ]] || ln -s busybox "$root/bin/$applet"
done
ln -s ../bin/busybox "$root/sbin/init"
# The kernel opens /dev/console before /init runs; without this node early output would be lost.
mknod -m 600 "$root/dev/console" c 5 1
mknod -m 666 "$root/dev/null" c 1 3
for m in "${MODULES[@]}"; do
  ko=$(find "$work/kernel/lib/modules/$kver" \( -name "$m.ko" -o -name "$m.ko.xz" \) | head -n 1)
  [[ -n "$ko" ]] || { log "module $m not found in $kernel_pkg"; exit 1; }
  case "$ko" in
    *.xz) xz -dc "$ko" >"$root/lib/modules/$m.ko" ;;
    *) cp "$ko" "$root/lib/modules/$m.ko" ;;
  esac
done
printf '%s\n' "${MODULES[@]}" >"$root/lib/modules/order"
install -m 755 "$here/guest/init" "$root/init"
install -m 755 "$here/guest/udhcpc.script" "$root/udhcpc.script"
install -m 755 "$here/guest/watch-changes" "$root/watch-changes"
install -m 755 "$here/guest/net6" "$root/net6" && cc -static -Os -o "$root/bin/vlt-dhcp6c" "$here/guest/dhcp6c.c"
install -m 755 "$here/guest/alive" "$root/alive"
install -m 755 "$here/guest/nics" "$root/nics"
install -m 755 "$here/guest/power-button" "$root/etc/acpi/PWRF/00000080"
echo "root:x:0:0:root:/root:/bin/sh" >"$root/etc/passwd"
echo "root:x:0:" >"$root/etc/group"
echo demo >"$root/etc/hostname"

# --- 3b. guest agent: Debian's qemu-ga, the shared libraries ldd names (taken from their Debian packages),
# virtio_console (the agent's port) and brd (a RAM disk, so the agent has a block filesystem to report) --
qga_debs=(qemu-guest-agent libc6 libglib2.0-0 libpcre2-8-0 libudev1 libnuma1 liburing2)
for pkg in "${qga_debs[@]}"; do dpkg -x "$(fetch "$pkg")" "$work/qga"; done
install -D -m 755 "$work/qga/usr/sbin/qemu-ga" "$root/bin/qemu-ga"
for so in $(ldd "$work/qga/usr/sbin/qemu-ga" | awk '$1 ~ /^lib/ { print $1 }') ld-linux-x86-64.so.2; do
  lib=$(find "$work/qga/lib" "$work/qga/usr/lib" -name "$so" \( -type f -o -type l \) | head -n 1)
  [[ -n "$lib" ]] || { log "qemu-ga needs $so, not found in ${qga_debs[*]}"; exit 1; }
  install -D -m 755 "$(readlink -f "$lib")" "$root/lib/x86_64-linux-gnu/$so"
done
mkdir -p "$root/lib64" "$root/lib/modules/qga" "$root/root/.ssh"
ln -sf ../lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 "$root/lib64/ld-linux-x86-64.so.2"
ln -sf ../bin/busybox "$root/sbin/hwclock" # guest-set-time runs /sbin/hwclock -w
for m in virtio_console brd; do
  ko=$(find "$work/kernel/lib/modules/$kver" \( -name "$m.ko" -o -name "$m.ko.xz" \) | head -n 1)
  [[ -n "$ko" ]] || { log "module $m not found in $kernel_pkg"; exit 1; }
  case "$ko" in *.xz) xz -dc "$ko" >"$root/lib/modules/qga/$m.ko" ;; *) cp "$ko" "$root/lib/modules/qga/$m.ko" ;; esac
done
install -m 755 "$here/guest/qemu-ga" "$root/qemu-ga"
install -m 755 "$here/guest/qga-hostile" "$root/qga-hostile" # a misbehaving agent for tests (vlt.qga=hostile)
install -m 755 "$here/guest/shutdown" "$root/sbin/shutdown" # guest-shutdown (agent reboot/power-off) runs it
printf 'NAME="VLT demo guest"\nID=vlt-demo\nID_LIKE=debian\nPRETTY_NAME="VLT demo guest 1 (busybox)"\nVERSION="1 (busybox)"\nVERSION_ID=1\n' >"$root/etc/os-release"

# --- 4. outputs (written beside, then renamed, so a reader never sees half a file) ----------------------
(cd "$root" && find . | LC_ALL=C sort | "$bb" cpio -o -H newc 2>/dev/null) | gzip -9 >"$out/initramfs.gz.tmp"
cp "$vmlinuz" "$out/vmlinuz.tmp"
{ printf '%s\n' "$MARKER"; } >"$out/containerdisk.img.tmp"
truncate -s 1M "$out/containerdisk.img.tmp"
cat >"$out/guest.env.tmp" <<ENV
KERNEL_PACKAGE=$kernel_pkg
KERNEL_VERSION=$kver
BUSYBOX_DEB=${busybox_deb##*/}
CONTAINERDISK_MARKER=$MARKER
CMDLINE='$CMDLINE'
ENV
for o in "${outputs[@]}"; do mv -f "$out/$o.tmp" "$out/$o"; done
log "built in $out: kernel $kver, initramfs $(du -k "$out/initramfs.gz" | cut -f1) KiB"

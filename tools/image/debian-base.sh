# shellcheck shell=bash
# The recipe of the image's Debian root, sourced by build.sh (which caches the root under a hash of exactly these
# values, so any change here rebuilds it). Debian 13 (trixie): libvirt 11.3 and QEMU 10.0, and the helpers KubeVirt's
# launcher image carries for what a VMI may ask for: passt (passt/pasta binding), virtiofsd (virtiofs filesystems),
# swtpm (persistent and ephemeral vTPM), ovmf (EFI firmware). No Debian release packages the modular virtqemud, so
# libvirtd runs as the pod's QEMU daemon under that name (packages/launcher/src/daemons/libvirt-daemons.ts).
# shellcheck disable=SC2034 # read by build.sh
debian_suite=trixie
debian_packages=libvirt-daemon,libvirt-daemon-driver-qemu,libvirt-clients,qemu-system-x86,qemu-utils,passt,virtiofsd,swtpm,swtpm-tools,ovmf,genisoimage,busybox,procps,iproute2,passwd,ca-certificates
# shellcheck disable=SC2016 # "$1" is expanded by mmdebstrap's hooks, not here
debian_mm_args=(
  --variant=apt --quiet --include="$debian_packages"
  --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*'
  --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-include=/usr/share/locale/locale.alias'
  # qemu-system-x86 also ships the i386 and microvm builds (36 MiB): KubeVirt runs only the x86_64 one (its
  # image's qemu-kvm), which libvirt also takes for i686 guests when qemu-system-i386 is absent.
  --dpkgopt='path-exclude=/usr/bin/qemu-system-i386' --dpkgopt='path-exclude=/usr/bin/qemu-system-x86_64-microvm'
  --customize-hook='chroot "$1" sh -c "getent passwd qemu >/dev/null || useradd --system --uid 107 --user-group --home-dir /var/lib/libvirt --shell /usr/sbin/nologin qemu"'
  --customize-hook='rm -rf "$1"/var/cache/apt/* "$1"/var/lib/apt/lists/*'
)

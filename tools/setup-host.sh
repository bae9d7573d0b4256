#!/usr/bin/env bash
# Idempotent set-up of a Debian 12 machine for this repo: the Debian packages the real stack needs,
# the npm dependencies, and a build of every package. Both README commands (npm test, npm run demo) call it.
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf '[setup] %s\n' "$*" >&2; }

# Debian packages (see docs/host.md). tini and dnsmasq-base are benchmark peers only; gcc + libc6-dev build the
# static container-disk (tools/pod-programs), file checks it.
DEBS=(
  libvirt-daemon libvirt-daemon-driver-qemu libvirt-clients libvirt-dev libxml2-utils
  qemu-system-x86 qemu-system-arm qemu-utils nftables iproute2 busybox udhcpc xorriso genisoimage
  dnsmasq-base tini pkg-config g++ make python3 util-linux procps librsvg2-bin gcc libc6-dev file
)
missing=()
for p in "${DEBS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
  if [[ $(id -u) -ne 0 ]]; then
    log "missing Debian packages: ${missing[*]} (run as root, or install them yourself)"
    exit 1
  fi
  log "installing Debian packages: ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# npm dependencies: only when the lockfile changed since the last install.
if [[ ! -f node_modules/.package-lock.json || package-lock.json -nt node_modules/.package-lock.json ]]; then
  log "npm ci"
  npm ci --no-audit --no-fund --loglevel=error
fi

# Native addons build against the machine's Node headers, never downloaded ones.
export npm_config_nodedir="${npm_config_nodedir:-/usr}"

log "building every package"
npx nx run-many -t build --outputStyle=static >/dev/null || npx nx run-many -t build --outputStyle=static
log "ready"

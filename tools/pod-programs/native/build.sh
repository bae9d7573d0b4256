#!/usr/bin/env bash
# Builds container-disk as a static executable: virt-controller copies it into containerDisk images that
# are often FROM scratch, so it may depend on nothing, not even a C library on the target.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p build
out=build/container-disk
if [[ ! -x $out || native/container-disk.c -nt $out ]]; then
  gcc -static -Os -s -Wall -Wextra -Werror -o "$out.tmp" native/container-disk.c
  mv "$out.tmp" "$out"
fi

#!/usr/bin/env bash
# Builds the native virt-launcher-monitor (native/*.c) as a static executable at build/virt-launcher-monitor:
# PID 1 of the compute container needs no JavaScript engine (README "Native PID 1") and no C library at run time.
# Runs after node-gyp in `npm run build`: `node-gyp rebuild` empties build/.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p build
out=build/virt-launcher-monitor
srcs=(native/monitor.c native/args.c native/log.c native/shutdown.c native/istio.c)
if [[ ! -x $out || -n $(find native -newer "$out" -name '*.[ch]') ]]; then
  gcc -static -Os -s -std=gnu11 -Wall -Wextra -Werror -o "$out.tmp" "${srcs[@]}"
  mv "$out.tmp" "$out"
fi

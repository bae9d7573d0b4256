#!/usr/bin/env bash
# Every CLI of the workspace answers `npx --no-install NAME --help` from the repository root: exit 0 and a
# usage text on stdout. --no-install makes a missing local link fail here instead of npx fetching a package
# of the same name from the registry. The names come from the bin fields, plus the ones the README promises.
set -uo pipefail
shopt -s extglob
cd "$(dirname "$0")/.."
promised=(vmi-to-domain virt-ephemeral-disk virt-dhcp virt-netsetup virt-launcher-monitor virt-launcher virt-pod launcherctl)
mapfile -t declared < <(node -e '
  const fs = require("fs");
  for (const dir of ["packages", "tools"])
    for (const name of fs.readdirSync(dir)) {
      const file = `${dir}/${name}/package.json`;
      if (fs.existsSync(file)) for (const bin of Object.keys(JSON.parse(fs.readFileSync(file, "utf8")).bin ?? {})) console.log(bin);
    }')
failed=0
for name in $(printf '%s\n' "${promised[@]}" "${declared[@]}" | sort -u); do
  # Without a local link npx would still ask the registry about the name: refuse before it gets there.
  if [[ "$(realpath -m "node_modules/.bin/$name")" != "$PWD/"@(packages|tools)/* ]]; then
    printf 'FAIL %s: node_modules/.bin/%s is not a link into this repository (run npm ci)\n' "$name" "$name" >&2
    failed=1
    continue
  fi
  out=$(npx --no-install "$name" --help 2>&1 </dev/null)
  rc=$?
  if [[ $rc -ne 0 ]] || ! grep -qi '^usage' <<<"$out"; then
    printf 'FAIL %s --help: exit %s\n%s\n' "$name" "$rc" "$(head -5 <<<"$out")" >&2
    failed=1
  else
    printf 'ok   %s --help\n' "$name"
  fi
done
exit $failed

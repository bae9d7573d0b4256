#!/usr/bin/env bash
# The whole test suite: generated contracts up to date, formatting, lint, typecheck, then every test of
# every package and tool. Ends with one "N passed, N failed" line summed over all vitest runs.
set -uo pipefail
cd "$(dirname "$0")/.."
export npm_config_nodedir="${npm_config_nodedir:-/usr}"
status=0
step() { printf '\n=== %s ===\n' "$*"; }

step "generated contracts are up to date"
npx nx run-many -t proto --outputStyle=static --skip-nx-cache >/dev/null
if [[ -n "$(git status --porcelain -- 'packages/*/src/gen' 'tools/*/src/gen')" ]]; then
  echo "stale generated code: run 'npm run proto' and commit the result" >&2
  git status --porcelain -- 'packages/*/src/gen' 'tools/*/src/gen' >&2
  status=1
fi

step "every CLI answers npx --no-install NAME --help"
bash tools/check-cli-help.sh || status=1

step "format"
npx prettier --check . --log-level warn || status=1

step "lint and typecheck"
npx nx run-many -t lint typecheck --outputStyle=static || status=1

step "tests"
rm -rf .cache/test-results
# One project at a time: integration tests start libvirtd, QEMU guests and network namespaces, and two cores
# are better spent on one of them than on contention between them.
npx nx run-many -t test --parallel=1 --outputStyle=static || status=1

node tools/sum-test-results.mjs || status=1
exit $status

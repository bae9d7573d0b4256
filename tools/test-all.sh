#!/usr/bin/env bash
# The whole test suite: generated contracts up to date, every CLI reachable through npx, formatting, lint,
# typecheck, the unit layer shuffled and without root, then every test of every package and tool, summed into one
# "N passed, N failed, N skipped" line; last, a check that the run left tracked files as it found them.
set -uo pipefail
cd "$(dirname "$0")/.."
export npm_config_nodedir="${npm_config_nodedir:-/usr}"
status=0
step() { printf '\n=== %s ===\n' "$*"; }
# What the run may not change: the content of tracked files (uncommitted edits made before the run are fine).
tracked_state() { { git status --porcelain --untracked-files=no; git diff --binary; } | sha256sum; }
untracked_files() { git status --porcelain --untracked-files=all | grep '^??' || true; }
tracked_before=$(tracked_state)
untracked_before=$(untracked_files)

step "generated contracts are up to date"
# Regenerate with each package's own `proto` target, compare with the files as they were, then put those back:
# the check reports stale code without leaving the tree changed (a stale file stays as the developer left it).
gen_copy=$(mktemp -d)
mapfile -t gen_dirs < <(ls -d packages/*/src/gen tools/*/src/gen 2>/dev/null)
for dir in "${gen_dirs[@]}"; do mkdir -p "$gen_copy/$dir" && cp -a "$dir/." "$gen_copy/$dir/"; done
npx nx run-many -t proto --outputStyle=static --skip-nx-cache >/dev/null || status=1
for dir in $(printf '%s\n' "${gen_dirs[@]}" $(ls -d packages/*/src/gen tools/*/src/gen 2>/dev/null) | sort -u); do
  if ! diff -r "$gen_copy/$dir" "$dir" >/dev/null 2>&1; then
    echo "stale generated code in $dir: run 'npm run proto' and commit the result" >&2
    diff -r "$gen_copy/$dir" "$dir" 2>&1 | head -20 >&2
    status=1
  fi
  rm -rf "$dir"
  if [[ -d "$gen_copy/$dir" ]]; then cp -a "$gen_copy/$dir" "$dir"; fi
done
rm -rf "$gen_copy"

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

step "unit layer: in random order, without root (npm run test:unit)"
# vitest.unit.config.ts shuffles files and tests and prints its seed, so a unit test that leans on another's order
# or leftovers fails here (replay: npm run test:unit -- --sequence.seed=N). Run as root, it drops to uid 65534, so a
# unit test that needs root fails too (CONTRIBUTING.md, "Two test layers"). After the tests: everything is built.
if [[ $(id -u) -eq 0 ]] && command -v setpriv >/dev/null; then
  unit_home=$(mktemp -d) && chown 65534:65534 "$unit_home"
  # repo-view: a clone under a directory others cannot search (mktemp -d) stays reachable for uid 65534.
  bash tools/sandbox/private-root.sh repo-view -- setpriv --reuid=65534 --regid=65534 --clear-groups \
    env HOME="$unit_home" npm run test:unit --silent || status=1
  rm -rf "$unit_home"
else
  npm run test:unit --silent || status=1
fi

step "the run left the working tree as it found it"
if [[ "$(tracked_state)" != "$tracked_before" ]]; then
  echo "the run changed tracked files (git status / git diff differ from before the run):" >&2
  git status --porcelain --untracked-files=no >&2
  status=1
fi
# New untracked files are reported, not failed: on a shared working tree someone else may be adding files.
comm -13 <(sort <<<"$untracked_before") <(untracked_files | sort) | sed 's/^/warning: new file not ignored by git: /' >&2
exit $status

#!/usr/bin/env bash
# Runs every check and test of Arbor: UI lint/types/unit tests, rustfmt, clippy, and the Rust
# test suites including the desktop end-to-end test (real app under Xvfb over WebDriver).
# Installs what it needs first, idempotently. Ends with one line: "tests: N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh

bash scripts/setup.sh test || { echo "setup failed"; exit 1; }

logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
failed_steps=()
passed=0
failed=0

# Runs one step, shows its output, and adds the tests it reports to the totals.
step() {
  local name=$1; shift
  local log="$logs/$name.log"
  printf '\n\033[1m==> %s\033[0m  (%s)\n' "$name" "$*"
  local started=$SECONDS
  "$@" 2>&1 | tee "$log"
  local status=${PIPESTATUS[0]}
  local plain
  plain=$(sed 's/\x1b\[[0-9;]*[A-Za-z]//g' "$log")
  # cargo test: "test result: ok. 5 passed; 0 failed; ..."
  local p f
  p=$(grep -Eo 'test result: [a-zA-Z]+\. [0-9]+ passed' <<<"$plain" | grep -Eo '[0-9]+ passed' | awk '{s+=$1} END {print s+0}')
  f=$(grep -Eo '[0-9]+ passed; [0-9]+ failed' <<<"$plain" | awk '{s+=$3} END {print s+0}')
  # vitest: "Tests  3 failed | 12 passed (15)"
  local vitest
  vitest=$(grep -E '^\s*Tests\s+' <<<"$plain" | tail -n 1)
  if [ -n "$vitest" ]; then
    p=$((p + $(grep -Eo '[0-9]+ passed' <<<"$vitest" | grep -Eo '[0-9]+' || echo 0)))
    f=$((f + $(grep -Eo '[0-9]+ failed' <<<"$vitest" | grep -Eo '[0-9]+' || echo 0)))
  fi
  passed=$((passed + p)); failed=$((failed + f))
  if [ "$status" -ne 0 ]; then
    failed_steps+=("$name")
    printf '\033[31m<== %s failed (exit %s, %ss)\033[0m\n' "$name" "$status" $((SECONDS - started))
  else
    printf '<== %s ok (%ss)\n' "$name" $((SECONDS - started))
  fi
}

step self-contained node scripts/check-self-contained.mjs
step ui-lint npm run --silent ui:lint
step ui-check npm run --silent ui:check
step ui-test npm run --silent ui:test
# The desktop binary embeds ui/dist at compile time, so build the UI before any cargo step.
step ui-build npm run --silent ui:build
step rustfmt cargo fmt --all --check
step clippy cargo clippy --workspace --all-targets --locked -- -D warnings
# The release packages the `package` end-to-end suite unpacks and starts.
step bundle npm run --silent bundle
# Inside a private D-Bus session with a throwaway, unlocked gnome-keyring: the keychain tests (and
# the app under test) use a real Secret Service, never the user's.
step cargo-test dbus-run-session -- bash scripts/with-keyring.sh \
  cargo test --workspace --locked --no-fail-fast

echo
if [ ${#failed_steps[@]} -gt 0 ]; then
  echo "failed steps: ${failed_steps[*]}"
  [ "$failed" -eq 0 ] && failed=${#failed_steps[@]}
else
  echo "all steps passed"
fi
echo "tests: $passed passed, $failed failed"
[ ${#failed_steps[@]} -eq 0 ]

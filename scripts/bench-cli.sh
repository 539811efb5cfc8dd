#!/usr/bin/env bash
# CLI benchmarks (issue budgets in DESIGN.md §12): `arbor --version` cold start, and wall time and
# peak memory of one `arbor -p` turn against the loopback mock provider. Release builds.
# Prints plain numbers; nothing here is asserted. Usage: scripts/bench-cli.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
runs=${1:-30}

if ! command -v hyperfine >/dev/null 2>&1; then
  sudo=(); [ "$(id -u)" -ne 0 ] && sudo=(sudo)
  "${sudo[@]}" apt-get install -y -qq hyperfine >/dev/null || { echo "install hyperfine first"; exit 1; }
fi

cargo build --release --quiet -p arbor-cli -p arbor-test-support
bin="$CARGO_TARGET_DIR/release"
work=$(mktemp -d)
trap 'kill $mock_pid 2>/dev/null || true; rm -rf "$work"' EXIT

# One scripted answer per run, plus hyperfine's warm-up runs.
python3 - "$work/script.json" $((runs * 3 + 10)) <<'PY'
import json, sys
turn = {"stream": {"steps": [{"text": "The answer is 42. " * 20},
                             {"usage": {"input": 50, "output": 90}}]}}
json.dump({"turns": [turn] * int(sys.argv[2])}, open(sys.argv[1], "w"))
PY
"$bin/arbor-mock-provider" --script "$work/script.json" > "$work/url" &
mock_pid=$!
for _ in $(seq 50); do [ -s "$work/url" ] && break; sleep 0.1; done
url=$(head -n1 "$work/url")
prompt=(-p --api anthropic-messages --base-url "$url" --model bench --api-key k "what is the answer?")

echo "== arbor --version (cold start)"
hyperfine -N --warmup 3 --runs "$runs" "$bin/arbor --version" 2>&1 | grep -E 'Time|Range'
echo "== arbor -p, one turn against the mock ($url)"
hyperfine -N --warmup 3 --runs "$runs" "$bin/arbor ${prompt[*]@Q}" 2>&1 | grep -E 'Time|Range' || true
echo "== peak memory (max RSS) of arbor -p, one turn"
/usr/bin/time -f "%M KiB max RSS, %e s wall" "$bin/arbor" "${prompt[@]}" > /dev/null

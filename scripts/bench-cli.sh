#!/usr/bin/env bash
# CLI benchmarks (budgets in DESIGN.md §12): `arbor --version` cold start, and wall time and peak
# memory of `arbor -p` against the loopback mock provider: one turn without tools, and a two-turn
# run (one `read` tool call, then the answer), stored beside `--no-session`: once with hyperfine,
# once taking turns (`bench/interleave.py`). Release builds.
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
# A data folder of the run's own: the stored runs neither read nor grow the user's sessions.
export ARBOR_DATA_DIR="$work/data"
# A project of one file beside this repository (1,000 files): what storing costs apart from
# the walk of the workspace that a user turn's code-state snapshot makes.
mkdir -p "$work/small"
cp Cargo.toml "$work/small/"

# Script files: one answer per run, and a two-turn run (a `read` tool call, then an answer).
python3 - "$work" $((runs * 6 + 20)) <<'PY'
import json, sys
work, n = sys.argv[1], int(sys.argv[2])
answer = {"stream": {"steps": [{"text": "The answer is 42. " * 20},
                               {"usage": {"input": 50, "output": 90}}]}}
read = {"stream": {"steps": [{"tool_call": {"name": "read", "arguments": {"path": "Cargo.toml"}}}]}}
json.dump({"turns": [answer] * n}, open(f"{work}/one.json", "w"))
# Each measured two-turn pair runs in two projects (this repository, a one-file project), with
# hyperfine and taking turns: 10 runs of the pair per round, plus warm-ups.
json.dump({"turns": [read, answer] * (2 * n)}, open(f"{work}/two.json", "w"))
PY
mock_pids=()
trap 'kill "${mock_pids[@]}" 2>/dev/null || true; rm -rf "$work"' EXIT
for name in one two; do
  "$bin/arbor-mock-provider" --script "$work/$name.json" > "$work/$name.url" &
  mock_pids+=($!)
done
for name in one two; do
  for _ in $(seq 50); do [ -s "$work/$name.url" ] && break; sleep 0.1; done
done
one=$(head -n1 "$work/one.url")
two=$(head -n1 "$work/two.url")
common=(--api anthropic-messages --model bench --api-key k)

echo "== arbor --version (cold start)"
hyperfine -N --warmup 3 --runs "$runs" "$bin/arbor --version" 2>&1 | grep -E 'Time|Range'
echo "== arbor -p --no-tools, one turn against the mock"
hyperfine -N --warmup 3 --runs "$runs" "$bin/arbor -p --no-tools ${common[*]} --base-url $one hello" 2>&1 | grep -E 'Time|Range'
echo "== arbor -p, two turns: a read tool call, then the answer (stored, beside --no-session)"
# Both in one hyperfine run, so the ratio is measured under the same load.
hyperfine -N --warmup 3 --runs "$runs" \
  -n stored "$bin/arbor -p ${common[*]} --base-url $two summarize" \
  -n no-session "$bin/arbor -p --no-session ${common[*]} --base-url $two summarize" 2>&1 |
  grep -E 'Benchmark|Time|Range|±.*times faster|faster than'
echo "== the same in a project of one file"
(cd "$work/small" && hyperfine -N --warmup 3 --runs "$runs" \
  -n stored "$bin/arbor -p ${common[*]} --base-url $two summarize" \
  -n no-session "$bin/arbor -p --no-session ${common[*]} --base-url $two summarize" 2>&1 |
  grep -E 'Benchmark|Time|±.*times faster|faster than')
# The same pairs taking turns, each with a data folder of its own: a stored run leaves the
# database's write-ahead log for the next process that opens it (a `--no-session` run opens it
# too, for the project's permissions), so who runs after whom moves the figures by milliseconds.
# A third command is `--no-session` in a data folder that has a database (one stored run made
# it), as on a machine where Arbor was used before: it opens the database for the project's
# permissions, which the first `--no-session` (a data folder without one) does not.
echo "== the same pairs taking turns, a data folder each (medians of $runs rounds)"
repo=$PWD
for project in "$repo" "$work/small"; do
  echo "  in $project:"
  used="$work/turns-used-${project##*/}"
  (cd "$project" && ARBOR_DATA_DIR="$used" "$bin/arbor" -p "${common[@]}" --base-url "$two" summarize >/dev/null)
  (cd "$project" && python3 "$repo/scripts/bench/interleave.py" "$runs" \
    "stored=env ARBOR_DATA_DIR=$work/turns-stored-${project##*/} $bin/arbor -p ${common[*]} --base-url $two summarize" \
    "no-session=env ARBOR_DATA_DIR=$work/turns-plain-${project##*/} $bin/arbor -p --no-session ${common[*]} --base-url $two summarize" \
    "no-session-db=env ARBOR_DATA_DIR=$used $bin/arbor -p --no-session ${common[*]} --base-url $two summarize")
done
echo "== peak memory (max RSS)"
/usr/bin/time -f "one turn:  %M KiB max RSS, %e s wall" "$bin/arbor" -p --no-tools "${common[@]}" --base-url "$one" hello > /dev/null
/usr/bin/time -f "two turns: %M KiB max RSS, %e s wall" "$bin/arbor" -p "${common[@]}" --base-url "$two" summarize > /dev/null
/usr/bin/time -f "two turns, --no-session: %M KiB max RSS, %e s wall" "$bin/arbor" -p --no-session "${common[@]}" --base-url "$two" summarize > /dev/null
# The startup functions placed together by `scripts/link-ordered.sh` (what keeps the code mapped
# small): how many of the binary's functions its list still names.
placed=$(ls -t "$bin"/deps/arbor-*.link-order 2>/dev/null | grep -E '/arbor-[0-9a-f]+\.link-order$' | head -n1 || true)
if [ -n "$placed" ]; then
  echo "code placement: $(wc -l <"$placed") functions placed together, named by" \
    "$(wc -l <scripts/link-order/cli.txt) in scripts/link-order/cli.txt (fewer after a compiler" \
    "or dependency update: run scripts/link-order.sh)"
else
  echo "code placement: none (not linked through scripts/link-ordered.sh)"
fi

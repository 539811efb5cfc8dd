#!/usr/bin/env bash
# Measures the desktop app on a release build (issue 9, §7), printing figures; asserts nothing.
#   - launch → first window mapped (xdotool), median of RUNS launches
#   - memory of the whole process tree (app + WebKit processes), RSS and PSS, with a
#     2,000-message session open, after it settled
# Needs xdotool and Xvfb (apt); starts its own Xvfb when DISPLAY is unset.
# Usage: bash scripts/bench-desktop.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
runs=${1:-5}

npm run --silent ui:build >/dev/null
cargo build --release --quiet -p arbor-desktop -p arbor-cli
app=$CARGO_TARGET_DIR/release/arbor-desktop
arbor=$CARGO_TARGET_DIR/release/arbor

work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
if [ -z "${DISPLAY:-}" ]; then
  Xvfb :97 -screen 0 1600x1000x24 -nolisten tcp >/dev/null 2>&1 &
  pids+=($!)
  export DISPLAY=:97
  sleep 1
fi
export ARBOR_DATA_DIR=$work/data
mkdir -p "$work/project" "$ARBOR_DATA_DIR"
printf '{"providers":{"mock":{"api":"openai-completions","baseUrl":"http://127.0.0.1:9/v1","models":[{"id":"m1"}]}}}\n' \
  >"$ARBOR_DATA_DIR/models.json"
node scripts/bench/long-session.mjs 2000 "$work/project" >"$work/session.jsonl"
(cd "$work/project" && "$arbor" import "$work/session.jsonl" >/dev/null)

now_ms() { date +%s%3N; }
# The process tree below $1 (WebKit's web and network processes are children of the app).
tree_of() {
  local pid=$1
  echo "$pid"
  for child in $(ps -o pid= --ppid "$pid"); do tree_of "$child"; done
}
window_of() { xdotool search --sync --onlyvisible --pid "$1" 2>/dev/null | head -n 1; }

launch_times=()
for _ in $(seq "$runs"); do
  started=$(now_ms)
  "$app" >/dev/null 2>&1 &
  pid=$!
  pids+=("$pid")
  window_of "$pid" >/dev/null
  launch_times+=($(($(now_ms) - started)))
  kill "$pid"
  wait "$pid" 2>/dev/null || true
done
sorted=$(printf '%s\n' "${launch_times[@]}" | sort -n)
median=$(echo "$sorted" | sed -n "$(((runs + 1) / 2))p")
echo "launch → window mapped: median ${median} ms over $runs runs ($(echo $sorted | tr '\n' ' ')ms)"

"$app" "$work/project" >/dev/null 2>&1 &
pid=$!
pids+=("$pid")
window_of "$pid" >/dev/null
sleep 10
rss=0
pss=0
for member in $(tree_of "$pid"); do
  member_rss=$(ps -o rss= -p "$member" || echo 0)
  member_pss=$(awk '/^Pss:/ {print $2}' "/proc/$member/smaps_rollup" 2>/dev/null || echo 0)
  echo "  $(ps -o comm= -p "$member"): RSS $((member_rss / 1024)) MB, PSS $((member_pss / 1024)) MB"
  rss=$((rss + member_rss))
  pss=$((pss + member_pss))
done
echo "idle memory, 2,000-message session open: RSS $((rss / 1024)) MB, PSS $((pss / 1024)) MB ($(tree_of "$pid" | wc -l) processes)"

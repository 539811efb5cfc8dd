#!/usr/bin/env bash
# Measures the desktop app on a release build, printing figures; asserts nothing.
#   - launch → first window mapped (xdotool), median of RUNS launches
#   - memory of the whole process tree (app + WebKit's web and network processes), PSS, after it
#     settled, side by side in one run: the floor (`examples/memory_floor`: the smallest Tauri
#     app with the same Tauri, WebKit and defaults, an empty page), Arbor's start page, and
#     Arbor with a 2,000-message session open; then the differences the targets are stated in.
#     Between them, to see where the session's memory goes: a project window with no session,
#     and a 50-message session (the chat mounts its last 20).
#   - first with the renderer Arbor chooses on this machine (`src-tauri/src/renderer.rs`; the
#     floor chooses the same), then with each WebKit setting forced on both
#     (`WEBKIT_DISABLE_DMABUF_RENDERER=0`: WebKit's DMA-BUF default; `=1`; and
#     `WEBKIT_DISABLE_COMPOSITING_MODE=1`), unless BENCH_RENDERERS=chosen
# Needs xdotool and Xvfb (apt); starts its own Xvfb when DISPLAY is unset.
# Usage: bash scripts/bench-desktop.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
runs=${1:-5}

npm run --silent ui:build >/dev/null
cargo build --release --quiet -p arbor-desktop -p arbor-cli
cargo build --release --quiet -p arbor-desktop --example memory_floor
floor=$CARGO_TARGET_DIR/release/examples/memory_floor
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
# Where the session's memory goes, in steps: a project window with no session (the window's own
# parts), then a 50-message session (the chat mounts its last 20: what mounted messages cost),
# then the 2,000-message one (20 mounted too; the rest is data: the branch's tail and the tree).
mkdir -p "$work/empty" "$work/short"
node scripts/bench/long-session.mjs 50 "$work/short" >"$work/short.jsonl"
(cd "$work/short" && "$arbor" import "$work/short.jsonl" >/dev/null)

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

# PSS in KiB of one process, then the part of it that is file-backed (code of the binary and
# the libraries, fonts, the mapped database: clean pages the kernel can drop and read again);
# "0 0" when it is gone.
pss_of() {
  awk '/^Pss:/ {p = $2} /^Pss_File:/ {f = $2} END {print p + 0, f + 0}' \
    "/proc/$1/smaps_rollup" 2>/dev/null || echo 0 0
}
# Starts "$@", waits for its window and SETTLE seconds, then prints one line per process of its
# tree ("name PSS_KiB FILE_KiB") and stops it.
settle=${SETTLE:-8}
measure() {
  "$@" >/dev/null 2>&1 &
  local pid=$!
  pids+=("$pid")
  window_of "$pid" >/dev/null
  sleep "$settle"
  for member in $(tree_of "$pid"); do
    echo "$(ps -o comm= -p "$member" | tr ' ' '_') $(pss_of "$member")"
  done
  kill "$pid"
  wait "$pid" 2>/dev/null || true
}
# Sum of the PSS lines of a measurement whose process name matches $2 (all when empty), in MB;
# $3 picks the column (2: PSS, 3: its file-backed part).
mb() {
  awk -v want="$2" -v col="${3:-2}" '(want == "" || $1 ~ want) {s += $col} END {printf "%.0f", s / 1024}' <<<"$1"
}
report() {
  local name=$1 lines=$2
  printf '  %-28s total %4s MB  (app %s, web %s, network %s; file-backed %s)\n' "$name" \
    "$(mb "$lines" "")" "$(mb "$lines" "^(arbor|memory)")" "$(mb "$lines" "WebKitWeb")" \
    "$(mb "$lines" "WebKitNet")" "$(mb "$lines" "" 3)"
}

renderers=${BENCH_RENDERERS:-"chosen WEBKIT_DISABLE_DMABUF_RENDERER=0 WEBKIT_DISABLE_DMABUF_RENDERER=1 WEBKIT_DISABLE_COMPOSITING_MODE=1"}
for setting in $renderers; do
  settings=()
  [ "$setting" != chosen ] && settings=("$setting")
  echo "memory (PSS), $setting:"
  floor_lines=$(measure env "${settings[@]}" "$floor")
  start_lines=$(measure env "${settings[@]}" "$app")
  empty_lines=$(measure env "${settings[@]}" "$app" "$work/empty")
  short_lines=$(measure env "${settings[@]}" "$app" "$work/short")
  session_lines=$(measure env "${settings[@]}" "$app" "$work/project")
  report "floor (empty Tauri)" "$floor_lines"
  report "Arbor start page" "$start_lines"
  report "Arbor, project, no session" "$empty_lines"
  report "Arbor, 50 messages" "$short_lines"
  report "Arbor, 2,000 messages" "$session_lines"
  echo "  session over floor: $(($(mb "$session_lines" "") - $(mb "$floor_lines" ""))) MB (target <= 60)," \
    "web process start page -> session: +$(($(mb "$session_lines" WebKitWeb) - $(mb "$start_lines" WebKitWeb))) MB (target <= 30)," \
    "app process over floor's: $(($(mb "$session_lines" "^(arbor|memory)") - $(mb "$floor_lines" "^(arbor|memory)"))) MB (target <= 40)"
  echo "  of the session's $(($(mb "$session_lines" "") - $(mb "$floor_lines" ""))) MB over floor," \
    "file-backed: $(($(mb "$session_lines" "" 3) - $(mb "$floor_lines" "" 3))) MB (app" \
    "$(($(mb "$session_lines" "^(arbor|memory)" 3) - $(mb "$floor_lines" "^(arbor|memory)" 3))), web" \
    "$(($(mb "$session_lines" WebKitWeb 3) - $(mb "$floor_lines" WebKitWeb 3))))"
done

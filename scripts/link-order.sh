#!/usr/bin/env bash
# Makes the lists `scripts/link-ordered.sh` places functions by again: the functions a typical run
# of each program executes, in the order they first run (Valgrind's callgrind on a release
# build), by the stable names the linker script matches.
#   cli.txt      `arbor -p` storing a two-turn session (a `read` tool call, then the answer) and
#                the same with `--no-session`, against the loopback mock provider
#   desktop.txt  `arbor-desktop` opening a project with a 2,000-message session, under Xvfb,
#                until it has settled (as `scripts/bench-desktop.sh` measures it)
# Run it after a compiler or dependency update leaves a list matching fewer functions
# (`scripts/bench-cli.sh` prints how many of the binary's functions its list placed).
# Usage: scripts/link-order.sh [cli|desktop|all]
set -euo pipefail
cd "$(dirname "$0")/.."
which=${1:-all}
source scripts/env.sh
if ! command -v valgrind >/dev/null 2>&1; then
  sudo=(); [ "$(id -u)" -ne 0 ] && sudo=(sudo)
  "${sudo[@]}" apt-get install -y -qq valgrind >/dev/null
fi
bin="$CARGO_TARGET_DIR/release"
work=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true; rm -rf "$work"' EXIT
# Writes scripts/link-order/$1.txt from the callgrind files $work/callgrind.$1.*, binary $2.
write_list() {
  python3 - "$work" "$2" "$1" <<'PY' | scripts/link-ordered.sh --stable-names | awk '!seen[$0]++' >"scripts/link-order/$1.txt"
# The functions of the binary named argv[2] that ran, in the order callgrind first names them.
import glob, re, sys
seen = {}
for path in sorted(glob.glob(sys.argv[1] + "/callgrind." + sys.argv[3] + ".*")):
    objects, functions, current = {}, {}, None
    for line in open(path, errors="replace"):
        m = re.match(r"^(c?ob|c?fn)=\((\d+)\)(?: (.*))?$", line.rstrip("\n"))
        if not m:
            continue
        kind, ident, name = m.groups()
        if kind in ("ob", "cob"):
            if name is not None:
                objects[ident] = name
            if kind == "ob":
                current = objects.get(ident)
        else:
            if name is not None:
                functions[ident] = re.sub(r"'\d+$", "", name)
            if kind == "fn" and current and current.endswith("/" + sys.argv[2]):
                seen.setdefault(functions[ident], len(seen))
for name in sorted(seen, key=seen.get):
    if not name.startswith("("):
        print(name)
PY
  echo "scripts/link-order/$1.txt: $(wc -l <"scripts/link-order/$1.txt") functions"
}
valgrind_to() { exec valgrind --tool=callgrind --demangle=no --callgrind-out-file="$work/callgrind.$1.%p" "${@:2}"; }
cli_list() {
  cargo build --release --quiet -p arbor-cli -p arbor-test-support
  python3 - "$work/script.json" <<'PY'
import json, sys
answer = {"stream": {"steps": [{"text": "The answer is 42. " * 20},
                               {"usage": {"input": 50, "output": 90}}]}}
read = {"stream": {"steps": [{"tool_call": {"name": "read", "arguments": {"path": "Cargo.toml"}}}]}}
json.dump({"turns": [read, answer] * 8}, open(sys.argv[1], "w"))
PY
  "$bin/arbor-mock-provider" --script "$work/script.json" >"$work/url" &
  pids+=($!)
  for _ in $(seq 50); do [ -s "$work/url" ] && break; sleep 0.1; done
  local url
  url=$(head -n1 "$work/url")
  mkdir -p "$work/cli-project"
  cp Cargo.toml "$work/cli-project/"
  local run=(-p --api anthropic-messages --model bench --api-key k --base-url "$url" summarize)
  # The first stored run creates the database and the project's snapshots; the second is the
  # common case (both are listed).
  for args in "" "" "--no-session"; do
    (cd "$work/cli-project" && ARBOR_DATA_DIR="$work/cli-data" \
      valgrind_to cli "$bin/arbor" $args "${run[@]}" >/dev/null 2>&1)
  done
  write_list cli arbor
}

desktop_list() {
  npm run --silent ui:build >/dev/null
  cargo build --release --quiet -p arbor-desktop -p arbor-cli
  if [ -z "${DISPLAY:-}" ]; then
    Xvfb :96 -screen 0 1600x1000x24 -nolisten tcp >/dev/null 2>&1 &
    pids+=($!)
    export DISPLAY=:96
    sleep 1
  fi
  export ARBOR_DATA_DIR=$work/desktop-data
  mkdir -p "$work/desktop-project" "$ARBOR_DATA_DIR"
  printf '{"providers":{"mock":{"api":"openai-completions","baseUrl":"http://127.0.0.1:9/v1","models":[{"id":"m1"}]}}}\n' \
    >"$ARBOR_DATA_DIR/models.json"
  node scripts/bench/long-session.mjs 2000 "$work/desktop-project" >"$work/session.jsonl"
  (cd "$work/desktop-project" && "$bin/arbor" import "$work/session.jsonl" >/dev/null)
  # The start page, then the project with its session; each runs until its window has been up
  # a while (under Valgrind everything is some 50 times slower), then callgrind writes its file
  # and the app is stopped.
  for project in "" "$work/desktop-project"; do
    valgrind_to desktop "$bin/arbor-desktop" $project >/dev/null 2>&1 &
    local pid=$!
    pids+=($pid)
    xdotool search --sync --onlyvisible --pid "$pid" >/dev/null 2>&1 || true
    sleep "${SETTLE:-60}"
    callgrind_control --dump "$pid" >/dev/null
    kill "$pid"
    wait "$pid" 2>/dev/null || true
  done
  write_list desktop arbor-desktop
}

case "$which" in
  cli) cli_list ;;
  desktop) desktop_list ;;
  all) cli_list && desktop_list ;;
  *) echo "usage: scripts/link-order.sh [cli|desktop|all]" >&2; exit 2 ;;
esac

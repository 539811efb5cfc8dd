#!/usr/bin/env bash
# Records the event streams the chat reducer's tests replay (ui/src/state/recordings/), from the
# real `arbor --mode json` against the project's mock provider: one recording checks that both
# front ends read the same stream. Run after a change to the session API's events:
#   bash scripts/record-ui-streams.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/arbor-target}"
cargo build --quiet -p arbor-cli -p arbor-test-support --bins
BIN="$CARGO_TARGET_DIR/debug"
OUT=ui/src/state/recordings
WORK=$(mktemp -d)
trap 'kill "${MOCK_PID:-}" 2>/dev/null || true; rm -rf "$WORK"' EXIT

record() { # name, script JSON, prompt…
  local name=$1 script=$2
  shift 2
  printf '%s' "$script" >"$WORK/script.json"
  "$BIN/arbor-mock-provider" --script "$WORK/script.json" >"$WORK/url" &
  MOCK_PID=$!
  for _ in $(seq 50); do [[ -s "$WORK/url" ]] && break; sleep 0.1; done
  local url
  url=$(head -1 "$WORK/url")
  rm -rf "$WORK/data" "$WORK/project"
  mkdir -p "$WORK/data" "$WORK/project"
  printf 'hello world\n' >"$WORK/project/notes.txt"
  cat >"$WORK/data/models.json" <<JSON
{"providers": {"mock": {"api": "openai-completions", "baseUrl": "$url/v1",
  "displayName": "Mock provider", "models": [{"id": "m1", "contextWindow": 32000}]}}}
JSON
  "$BIN/arbor" --data-dir "$WORK/data" -C "$WORK/project" --model mock/m1 --mode json "$@" \
    | sed -e "s#$WORK#/tmp/arbor-recording#g" >"$OUT/$name.jsonl" || true # a failed run exits 1
  kill "$MOCK_PID"
  wait "$MOCK_PID" 2>/dev/null || true
  echo "recorded $OUT/$name.jsonl ($(wc -l <"$OUT/$name.jsonl") events)"
}

record markdown '{"turns": [{"stream": {"chunk_size": 7, "steps": [
  {"thinking": {"text": "The user greets me."}},
  {"text": "# Hello\n\nHere is **Markdown** and code:\n\n```rust\nfn main() {}\n```\n"},
  {"usage": {"input": 120, "output": 40}}]}}]}' 'hello'

record tools '{"turns": [
  {"stream": {"chunk_size": 5, "steps": [{"text": "Reading it."},
    {"tool_call": {"id": "call_read", "name": "read", "arguments": {"path": "notes.txt"}}}]}},
  {"stream": {"steps": [{"tool_call": {"id": "call_edit", "name": "edit", "arguments":
    {"path": "notes.txt", "edits": [{"old_text": "hello", "new_text": "goodbye"}]}}}]}},
  {"stream": {"steps": [{"tool_call": {"id": "call_bash", "name": "bash", "arguments":
    {"command": "echo one; sleep 0.3; echo two"}}}]}},
  {"stream": {"steps": [{"text": "All done."}]}}]}' 'read notes.txt and fix it'

record failure '{"turns": [{"http_error": {"status": 401, "body": {"error":
  {"message": "Incorrect API key provided", "type": "invalid_request_error"}}}}]}' 'hello'

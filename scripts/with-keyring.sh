#!/usr/bin/env bash
# Runs a command with a real, unlocked Secret Service (gnome-keyring) on the current D-Bus
# session bus, in throwaway folders: the keychain tests use the OS keychain the way the app does,
# without touching the user's own. Use it inside a private bus:
#   dbus-run-session -- bash scripts/with-keyring.sh cargo test
# (npm test does this). HOME stays as it is: rustup and cargo need it; the XDG folders move.
set -euo pipefail
if [ -z "${DBUS_SESSION_BUS_ADDRESS:-}" ]; then
  echo "with-keyring.sh: no D-Bus session; run it under dbus-run-session" >&2
  exit 1
fi
keyring_dir=$(mktemp -d)
trap 'rm -rf "$keyring_dir"' EXIT
export XDG_DATA_HOME="$keyring_dir/data" XDG_RUNTIME_DIR="$keyring_dir/run"
mkdir -p "$XDG_DATA_HOME/keyrings"
mkdir -m 700 "$XDG_RUNTIME_DIR"
# --unlock reads the new keyring's password from stdin: an unlocked keyring needs no prompt.
eval "$(printf 'arbor-test-keyring' | gnome-keyring-daemon --unlock --components=secrets)"
export GNOME_KEYRING_CONTROL
export ARBOR_TEST_KEYRING=1
"$@"

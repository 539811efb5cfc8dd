#!/usr/bin/env bash
# Installs what Arbor needs on Debian/Ubuntu, idempotently: system packages only when missing,
# npm packages only when the lock file changed, tauri-driver only when absent.
#   scripts/setup.sh app    what building and running the desktop app needs
#   scripts/setup.sh test   that, plus what the test suite needs (Xvfb, WebDriver, D-Bus, keyring)
set -euo pipefail
cd "$(dirname "$0")/.."

mode=${1:-app}
app_packages=(
  build-essential pkg-config file libssl-dev libdbus-1-dev bubblewrap
  libwebkit2gtk-4.1-dev libgtk-3-dev libsoup-3.0-dev libayatana-appindicator3-dev librsvg2-dev libxdo-dev
)
test_packages=(
  xvfb xauth webkit2gtk-driver dbus dbus-x11 gnome-keyring libsecret-1-dev libsecret-tools keyutils git tmux python3 python3-venv
  desktop-file-utils rpm
)
packages=("${app_packages[@]}")
[ "$mode" = test ] && packages+=("${test_packages[@]}")

say() { printf '\033[1msetup:\033[0m %s\n' "$*" >&2; }

if command -v dpkg-query >/dev/null 2>&1; then
  missing=()
  for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    sudo=()
    if [ "$(id -u)" -ne 0 ]; then
      command -v sudo >/dev/null 2>&1 || { say "missing packages ${missing[*]}: install them as root"; exit 1; }
      sudo=(sudo)
    fi
    say "installing ${missing[*]}"
    "${sudo[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
else
  say "not a Debian/Ubuntu system: install the Tauri prerequisites yourself (see README.md)"
fi

# npm ci only when node_modules is older than the lock file (or absent).
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  say "npm ci"
  npm ci --no-audit --no-fund --loglevel=error
fi

# The official MCP conformance suite and the Node 22 it needs, apart from the UI's packages.
conformance=tests/mcp-conformance
if [ "$mode" = test ] && { [ ! -f $conformance/node_modules/.package-lock.json ] || [ $conformance/package-lock.json -nt $conformance/node_modules/.package-lock.json ]; }; then
  say "npm ci in $conformance"
  npm ci --prefix $conformance --no-audit --no-fund --loglevel=error
fi

# Real MCP servers from PyPI, in a virtual environment of their own (the system's Python).
venv=tests/mcp-servers-py/.venv
if [ "$mode" = test ] && { [ ! -f $venv/installed ] || [ tests/mcp-servers-py/requirements.txt -nt $venv/installed ]; }; then
  say "pip install the MCP servers from PyPI into $venv"
  rm -rf $venv
  /usr/bin/python3 -m venv $venv
  $venv/bin/pip install --quiet --disable-pip-version-check -r tests/mcp-servers-py/requirements.txt
  touch $venv/installed
fi

if [ "$mode" = test ] && ! command -v tauri-driver >/dev/null 2>&1 && [ ! -x "${CARGO_HOME:-$HOME/.cargo}/bin/tauri-driver" ]; then
  say "cargo install tauri-driver (about 35 s, once)"
  cargo install tauri-driver --locked --version 2.1.0 --quiet
fi

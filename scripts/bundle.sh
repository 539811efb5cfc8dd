#!/usr/bin/env bash
# Builds the release desktop app as a .deb and an .rpm (Tauri's bundler; neither needs a
# download). The packages carry the app (/usr/bin/arbor-desktop), the sandbox's helper beside
# it (/usr/bin/arbor-sandbox: commands start it; without it every command asks) and the `arbor`
# CLI, a desktop entry and icons in every size. Installs what it needs first, idempotently.
# AppImage, .dmg/.app and .msi/NSIS need tools downloaded at build time (or another OS): not
# made here. Prints the paths of the packages it made.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
bash scripts/setup.sh app

cargo build --release --locked --quiet -p arbor-sandbox --bin arbor-sandbox -p arbor-cli --bin arbor
release="$CARGO_TARGET_DIR/release"
# The extra files go in through a config overlay: their paths are in the build folder, which
# tauri.conf.json cannot name.
overlay=$(mktemp --suffix=.json)
trap 'rm -f "$overlay"' EXIT
cat > "$overlay" <<JSON
{
  "bundle": {
    "linux": {
      "deb": { "files": {
        "/usr/bin/arbor-sandbox": "$release/arbor-sandbox",
        "/usr/bin/arbor": "$release/arbor"
      } },
      "rpm": { "files": {
        "/usr/bin/arbor-sandbox": "$release/arbor-sandbox",
        "/usr/bin/arbor": "$release/arbor"
      } }
    }
  }
}
JSON
# `beforeBuildCommand` builds the UI (embedded into the binary).
npx tauri build --ci --bundles deb,rpm --config "$overlay"
ls -1 "$release"/bundle/deb/*.deb "$release"/bundle/rpm/*.rpm

#!/usr/bin/env bash
# Builds and opens the Arbor desktop app (installs what it needs first, idempotently).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
bash scripts/setup.sh app
npm run --silent ui:build
# The sandbox's helper beside the app: commands start it instead of re-executing the app.
cargo build --quiet -p arbor-sandbox --bin arbor-sandbox
exec cargo run --quiet --bin arbor-desktop -- "$@"

#!/usr/bin/env bash
# The kill -9 soak of "Nothing lost": ARBOR_SOAK_TRIALS (default 200) runs of `arbor -c -p`
# (write, bash, edit; every fifth trial a restore) killed at random moments, each followed by
# SQLite's integrity check, `git fsck` of the snapshot store and a check that everything the
# model was sent is stored. Prints the counts. Takes several minutes: not part of `npm test`.
#   bash scripts/soak-kill9.sh            # 200 trials
#   ARBOR_SOAK_TRIALS=20 ARBOR_SOAK_SEED=7 bash scripts/soak-kill9.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
cargo test -p arbor-cli --test suite -- --ignored --nocapture nothing_lost::soak::soak_kill9

# Sourced by the scripts: one Cargo build folder outside the checkout, reused by every clone.
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$HOME/.cache/arbor-target}
export CARGO_TERM_COLOR=${CARGO_TERM_COLOR:-auto}

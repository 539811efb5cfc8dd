#!/usr/bin/env bash
# The linker rustc calls on x86_64 Linux (`.cargo/config.toml`): `cc`, as rustc would call it.
# For the release builds of Arbor's two programs it links twice: the second time with the
# functions a typical run executes placed side by side (lld's `--symbol-ordering-file`), so the
# kernel maps a few megabytes of code instead of most of the binary (it maps the 64 KB around
# each page a program touches; scattered code drags in most of a 32 MB `.text`).
#
# The lists in `scripts/link-order/` name functions by their v0 symbol names without the crate
# hashes (those change with the compiler and dependency versions), matched here against the
# symbols of the first link. `scripts/link-order.sh` makes the lists again. A list that no
# longer matches only leaves code where the linker put it: nothing else changes.
#
# `link-ordered.sh --stable-names` turns symbol names on stdin into the lists' form.
set -euo pipefail

stable_names() {
  # v0 crate roots `C s<hash>_ <name>` lose the hash; ThinLTO's `.llvm.<n>` suffix goes.
  sed -E 's/Cs[0-9A-Za-z]+_/C/g; s/\.llvm\.[0-9]+$//'
}

if [ "${1:-}" = --stable-names ]; then
  stable_names
  exit 0
fi

linker=${ARBOR_LINK_CC:-cc}
output=""
previous=""
for arg in "$@"; do
  [ "$previous" = "-o" ] && output=$arg
  previous=$arg
done
list=""
case "$(basename "$output")" in
  arbor_desktop-*) list=desktop ;;
  arbor-*) [[ "$(basename "$output")" =~ ^arbor-[0-9a-f]+$ ]] && list=cli ;;
esac
names="$(dirname "$0")/link-order/$list.txt"
if [ -z "$list" ] || [[ "$output" != */release/deps/* ]] || [ ! -s "$names" ] ||
  ! command -v nm >/dev/null 2>&1; then
  exec "$linker" "$@"
fi

"$linker" "$@"
order="$output.link-order"
# Every function of the first link beside its stable name; those listed, in the list's order.
nm --defined-only "$output" |
  awk 'NF == 3 && ($2 == "t" || $2 == "T" || $2 == "W" || $2 == "w") { print $3 }' > "$order.all"
stable_names < "$order.all" | paste -d' ' - "$order.all" |
  awk 'NR == FNR { if (!($0 in rank)) rank[$0] = FNR; next }
       ($1 in rank) { print rank[$1], $2 }' "$names" - |
  sort -n -s -k1,1 | cut -d' ' -f2 > "$order"
rm -f "$order.all"
exec "$linker" "$@" -Wl,--symbol-ordering-file="$order" -Wl,--no-warn-symbol-ordering

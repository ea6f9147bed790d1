#!/usr/bin/env bash
# Are two builds' outputs the same? Runs the main job (plain `rollsim`) and every command
# of the README's tour with each binary, each in a fresh copy of configs/, and compares
# what they print and every file they write, byte for byte. A Parquet file whose bytes
# differ is compared as a table (columns, types, values) when Python has polars.
#
#   benches/same_outputs.sh OLD_BINARY NEW_BINARY
#
# e.g. build a commit into its own target dir, then:
#   benches/same_outputs.sh /tmp/old/release/rollsim target/release/rollsim
# Exit 0 when every output is the same, 1 with the differences listed otherwise.
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 OLD_BINARY NEW_BINARY" >&2; exit 2; }
here="$(cd "$(dirname "$0")/.." && pwd)"
old="$(realpath "$1")"
new="$(realpath "$2")"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# The tour: every `rollsim ...` line of the README's code blocks but the server, which
# prints an address and runs until stopped.
mapfile -t tour < <(grep -E '^rollsim ' "$here/README.md" | grep -v '^rollsim serve' | sed 's/ *# .*$//')

run() { # BINARY DIR
    # Both run from one path, which `rollsim plan` writes into its scripts.
    local bin="$work/bin/rollsim" dir="$2"
    mkdir -p "$work/bin" "$dir"
    cp "$1" "$bin"
    cp -r "$here/configs" "$dir/configs"
    (
        cd "$dir"
        "$bin" -q > main.stdout 2>&1 || echo "exit $?" >> main.stdout
        local i=0
        for cmd in "${tour[@]}"; do
            i=$((i + 1))
            # Each command's own folder, so no two write into one report.
            mkdir -p "tour/$i"
            (cd "tour/$i" && ln -s ../../configs configs \
                && eval "\"$bin\" ${cmd#rollsim }" > stdout 2>&1 || echo "exit $?" >> stdout)
        done
    )
}

run "$old" "$work/old"
run "$new" "$work/new"

status=0
while IFS= read -r line; do
    case "$line" in
        "Files "*" and "*" differ")
            a="$(echo "$line" | sed -E 's/^Files (.*) and (.*) differ$/\1/')"
            b="$(echo "$line" | sed -E 's/^Files (.*) and (.*) differ$/\2/')"
            if [[ "$a" == *.parquet ]] && python3 -c 'import polars' 2>/dev/null \
                && python3 -c 'import sys, polars as pl; a, b = pl.read_parquet(sys.argv[1]), pl.read_parquet(sys.argv[2]); sys.exit(0 if a.schema == b.schema and a.equals(b) else 1)' "$a" "$b"; then
                continue
            fi
            echo "differs: ${a#"$work/old/"}"
            status=1
            ;;
        *)
            echo "$line"
            status=1
            ;;
    esac
done < <(diff -rq --no-dereference "$work/old" "$work/new" || true)
if [ "$status" -eq 0 ]; then
    echo "same: the main job and ${#tour[@]} tour commands print and write the same bytes ($(find "$work/new" -type f | wc -l) files)"
fi
exit "$status"

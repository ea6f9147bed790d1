#!/usr/bin/env bash
# Every balance command that takes a scenario alone (sensitivity, equalize, compare,
# roster) on every shipped scenario and group, with --exact-only, each timed as a whole
# process: seconds, exit code, config, command, scenario; slowest first. Exit 2 is a
# command the scenario does not take (a roster of weapons against monsters), said why.
#
#     cargo build --release && benches/balance-every-scenario.sh | head
set -uo pipefail
cd "$(dirname "$0")/.."
bin="$PWD/target/release/rollsim"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for cfg in configs/*.toml; do
    for name in $("$bin" list "$cfg" | cut -f1 | sed 's/@.*//' | sort -u); do
        for cmd in sensitivity equalize compare roster; do
            start=$EPOCHREALTIME
            "$bin" "$cmd" "$cfg" -s "$name" --exact-only --no-plots -o "$work/out" >/dev/null 2>&1
            code=$?
            end=$EPOCHREALTIME
            rm -rf "$work/out"
            awk -v a="$start" -v b="$end" -v rest="$code\t$(basename "$cfg")\t$cmd\t$name" \
                'BEGIN { printf "%.2f\t%s\n", b - a, rest }'
        done
    done
done | sort -rn

#!/usr/bin/env bash
# rollsim beside icepool on the exact queries of the README's "Speed" table.
#
# rollsim: `rollsim roll EXPR --exact-only` as a whole process (parse, exact
# distribution, the table printed), the median of three runs. icepool: the same query in
# a fresh Python process, timed from after `import icepool` to its mean computed
# (icepool_time.py), the median of three processes. Prints the Markdown table.
#
#   python3 -m venv /tmp/ice && /tmp/ice/bin/pip install 'icepool==2.1.*'
#   cargo build --release
#   PYTHON=/tmp/ice/bin/python benches/icepool/compare.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
ROLLSIM=${ROLLSIM:-target/release/rollsim}
PYTHON=${PYTHON:-python3}
HERE=benches/icepool

# name | rollsim expression
QUERIES=(
  "cancel-9d10-8d10-highest|cancel(9d10, 8d10) highest"
  "face-to-face-5d20|let a = 5d20 in let b = 5d20 in beats(a only <= 12, b only <= 12) - beats(b only <= 12, a only <= 12)"
  "cancel-12d6-10d6-sum|cancel(12d6, 10d6) sum"
  "record-6d10|let a = 6d10 in let b = 6d10 in { mine = beats(a, b), theirs = beats(b, a), left = cancel(a, b) highest }"
  "8d6-straight|8d6 straight"
  "160d20-keep-highest-80|160d20 keep highest 80"
  "200d6-sum|200d6 sum"
  "500d6-count-4|500d6 count >= 4"
  "20d20-keep-highest-10|20d20 keep highest 10"
  "100d6-keep-highest-50|100d6 keep highest 50"
  "pairs-10d6-10d6|pairs(10d6, 10d6)"
  "6d10-explode-depth-4-keep-highest-3|6d10 explode depth 4 keep highest 3"
  "6d10-explode-keep-highest-3|6d10 explode keep highest 3"
  "beats-5d20-5d20|beats(5d20, 5d20)"
  "5d10-count-7-less-ones|let p = 5d10 in p count >= 7 - p count 1"
)

median() { sort -g | sed -n 2p; }

echo "| query | rollsim | icepool 2.1 | ratio |"
echo "|---|---:|---:|---:|"
for q in "${QUERIES[@]}"; do
  name=${q%%|*}
  expr=${q#*|}
  ours=$(for _ in 1 2 3; do
    s=$(date +%s.%N)
    "$ROLLSIM" roll "$expr" --exact-only >/dev/null
    e=$(date +%s.%N)
    "$PYTHON" -c "print($e - $s)"
  done | median)
  theirs=$(for _ in 1 2 3; do
    "$PYTHON" "$HERE/icepool_time.py" "$name" | cut -f2
  done | median)
  row=$("$PYTHON" -c 'import sys; o, t = float(sys.argv[1]), float(sys.argv[2]); print("%.0f ms | %.0f ms | %.0fx" % (o * 1000, t * 1000, t / o))' "$ours" "$theirs")
  printf '| `%s` | %s |\n' "$expr" "$row"
done

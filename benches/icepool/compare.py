"""rollsim beside icepool on the exact queries of the "Speed" table (docs/architecture.md).

rollsim: `rollsim roll EXPR --exact-only` as a whole process (start, parse, exact
distribution, the table printed), timed around the process, the median of five runs.
icepool: the same query in a fresh Python process per run, timed from after `import
icepool` to its mean computed (icepool_time.py), the median of three processes. Prints
the Markdown table.

    python3 -m venv /tmp/ice && /tmp/ice/bin/pip install 'icepool==2.1.*'
    cargo build --release
    /tmp/ice/bin/python benches/icepool/compare.py
"""
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
ROLLSIM = os.environ.get("ROLLSIM", os.path.join(ROOT, "target", "release", "rollsim"))

# name (icepool_time.py's), rollsim expression
QUERIES = [
    ("cancel-9d10-8d10-highest", "cancel(9d10, 8d10) highest"),
    ("face-to-face-5d20", "let a = 5d20 in let b = 5d20 in beats(a only <= 12, b only <= 12) - beats(b only <= 12, a only <= 12)"),
    ("cancel-12d6-10d6-sum", "cancel(12d6, 10d6) sum"),
    ("record-6d10", "let a = 6d10 in let b = 6d10 in { mine = beats(a, b), theirs = beats(b, a), left = cancel(a, b) highest }"),
    ("8d6-straight", "8d6 straight"),
    ("160d20-keep-highest-80", "160d20 keep highest 80"),
    ("200d6-sum", "200d6 sum"),
    ("500d6-count-4", "500d6 count >= 4"),
    ("20d20-keep-highest-10", "20d20 keep highest 10"),
    ("100d6-keep-highest-50", "100d6 keep highest 50"),
    ("pairs-10d6-10d6", "pairs(10d6, 10d6)"),
    ("6d10-explode-depth-4-keep-highest-3", "6d10 explode depth 4 keep highest 3"),
    ("6d10-explode-keep-highest-3", "6d10 explode keep highest 3"),
    ("beats-5d20-5d20", "beats(5d20, 5d20)"),
    ("5d10-count-7-less-ones", "let p = 5d10 in p count >= 7 - p count 1"),
]


def ours(expr):
    times = []
    for _ in range(5):
        start = time.perf_counter()
        subprocess.run([ROLLSIM, "roll", expr, "--exact-only"], check=True,
                       stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def theirs(name):
    times = []
    for _ in range(3):
        out = subprocess.run([sys.executable, os.path.join(HERE, "icepool_time.py"), name],
                             check=True, capture_output=True, text=True).stdout
        times.append(float(out.split("\t")[1]))
    return statistics.median(times)


def ms(t):
    return f"{t * 1000:.1f} ms" if t < 0.01 else f"{t * 1000:.0f} ms"


def main():
    print("| query | rollsim | icepool 2.1 | ratio |")
    print("|---|---:|---:|---:|")
    for name, expr in QUERIES:
        o, t = ours(expr), theirs(name)
        print(f"| `{expr}` | {ms(o)} | {ms(t)} | {t / o:.1f}x |", flush=True)


if __name__ == "__main__":
    main()

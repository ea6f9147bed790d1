"""The Python package beside icepool, each in fresh processes, the import excluded:
`rollsim.roll(EXPR, exact_only=True).distribution` (the exact distribution as a polars
DataFrame) against
the same query in icepool (icepool_time.py), the median of three processes each; every
value of rollsim's distribution is checked equal to icepool's. Prints the Markdown
table of docs/python.md.

    python3 -m venv /tmp/py && /tmp/py/bin/pip install ./python 'icepool==2.1.*'
    /tmp/py/bin/python benches/icepool/python_compare.py
"""
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
def ms(t):
    return f"{t * 1000:.2f} ms" if t < 0.001 else f"{t * 1000:.1f} ms" if t < 0.01 else f"{t * 1000:.0f} ms"

from compare import QUERIES as WHOLE  # noqa: E402
from pinning import one_core  # noqa: E402

# Every query of compare.py with one value per roll (the record of three reads is a
# joint distribution, not one), and rolls of published games besides.
QUERIES = [(n, e) for n, e in WHOLE if n != "record-6d10"] + [
    ("10d10-explode-depth-4-keep-highest-5", "10d10 explode depth 4 keep highest 5"),
    ("4d6-drop-lowest", "4d6 drop lowest"),
    ("2d20-highest", "2d20 highest"),
    ("10d10-count-8", "10d10 count >= 8"),
    ("5d6-maxset", "5d6 maxset"),
    ("d4-d6", "(d4)d6"),
    ("d6-explode", "d6 explode"),
    ("3d6-less-2d6-plus-4", "3d6 - (2d6 + 4)"),
    ("5d10-again-10-count-7", "5d10 again 10 count >= 7"),
    ("5d10-again-10-ones-cancel", "let p = 5d10 again 10 in p count >= 7 - p count 1"),
]

OURS = """
import json, sys, time
import rollsim
start = time.perf_counter()
r = rollsim.roll(sys.argv[1], exact_only=True)
d = r.distribution
took = time.perf_counter() - start
print(json.dumps({"took": took, "dist": dict(zip(d["value"].to_list(), d["exact"].to_list()))}))
"""


def ours(expr):
    runs = [
        json.loads(subprocess.run([sys.executable, "-c", OURS, expr], check=True,
                                  capture_output=True, text=True).stdout)
        for _ in range(3)
    ]
    return statistics.median(r["took"] for r in runs), runs[0]["dist"]


def theirs(name):
    times = []
    for _ in range(3):
        out = subprocess.run([sys.executable, os.path.join(HERE, "icepool_time.py"), name],
                             check=True, capture_output=True, text=True).stdout
        times.append(float(out.split("\t")[1]))
    return statistics.median(times)


def same(name, dist):
    from icepool_time import QUERIES as ICE
    die = ICE[name]()
    want = {int(o): float(p) for o, p in zip(die.outcomes(), die.probabilities())}
    got = {int(k): v for k, v in dist.items() if v is not None}
    # Every value either side gives a chance above 1e-15 (a chain's last links are
    # smaller than the tables' 13 digits) is on both sides, within 1e-12.
    shown = {k for k, p in {**want, **got}.items() if p > 1e-15}
    assert shown <= set(got) and shown <= set(want), (name, sorted(shown - set(got) & set(want))[:5])
    worst = max(abs(got.get(k, 0.0) - want.get(k, 0.0)) for k in set(got) | set(want))
    assert worst < 1e-12, (name, worst)
    return worst


def main():
    cpu = one_core()
    print(f"timed on CPU {cpu}" if cpu is not None else "timed on any CPU", file=sys.stderr)
    print("| query | `rollsim.roll(..., exact_only=True)` | icepool 2.1 | ratio | largest difference |")
    print("|---|---:|---:|---:|---:|")
    only = sys.argv[1:]
    for name, expr in QUERIES:
        if only and name not in only:
            continue
        (o, dist), t = ours(expr), theirs(name)
        worst = same(name, dist)
        ratio = f"{t / o:.0f}x" if t / o >= 10 else f"{t / o:.1f}x"
        print(f"| `{expr}` | {ms(o)} | {ms(t)} | {ratio} | {worst:.0e} |", flush=True)


if __name__ == "__main__":
    main()

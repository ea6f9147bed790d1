"""The Python package beside icepool, each in fresh processes, the import excluded:
`rollsim.roll(EXPR, exact_only=True)` (the distribution as polars DataFrames) against
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
from compare import ms  # noqa: E402  (the same figures as docs/architecture.md's table)

QUERIES = [
    ("20d20-keep-highest-10", "20d20 keep highest 10"),
    ("100d6-keep-highest-50", "100d6 keep highest 50"),
    ("10d10-explode-depth-4-keep-highest-5", "10d10 explode depth 4 keep highest 5"),
]

OURS = """
import json, sys, time
import rollsim
start = time.perf_counter()
r = rollsim.roll(sys.argv[1], exact_only=True)
took = time.perf_counter() - start
d = r.distribution
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
    got = {int(k): v for k, v in dist.items()}
    assert set(got) == set(want), (name, sorted(set(got) ^ set(want))[:5])
    worst = max(abs(got[k] - want[k]) for k in want)
    assert worst < 1e-12, (name, worst)
    return worst


def main():
    print("| query | `rollsim.roll(..., exact_only=True)` | icepool 2.1 | ratio | largest difference |")
    print("|---|---:|---:|---:|---:|")
    for name, expr in QUERIES:
        (o, dist), t = ours(expr), theirs(name)
        worst = same(name, dist)
        print(f"| `{expr}` | {ms(o)} | {ms(t)} | {t / o:.0f}x | {worst:.0e} |", flush=True)


if __name__ == "__main__":
    main()

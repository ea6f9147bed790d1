"""Time one query in icepool in a fresh process, the import excluded.

Usage: python icepool_time.py NAME
Prints: NAME<TAB>seconds<TAB>mean. The queries are the rollsim expressions of
benches/icepool/compare.sh written in icepool's own terms.
"""
import sys
import time

import icepool
from icepool import d6, d10, d20


def f2f():
    @icepool.multiset_function
    def both(a, b):
        a12 = a.keep_outcomes(lambda x: x <= 12)
        b12 = b.keep_outcomes(lambda x: x <= 12)
        return (a12.versus_all('>', b12).size(), b12.versus_all('>', a12).size())

    return both(d20.pool(5), d20.pool(5)).map(lambda x, y: x - y)


def record():
    @icepool.multiset_function
    def three(a, b):
        return (a.versus_all('>', b).size(), b.versus_all('>', a).size(),
                a.difference(b).highest(1).sum())

    return three(d10.pool(6), d10.pool(6))


QUERIES = {
    "cancel-9d10-8d10-highest": lambda: d10.pool(9).difference(d10.pool(8)).highest(1).sum(),
    "face-to-face-5d20": f2f,
    "cancel-12d6-10d6-sum": lambda: d6.pool(12).difference(d6.pool(10)).sum(),
    "record-6d10": record,
    "8d6-straight": lambda: d6.pool(8).largest_straight(),
    "160d20-keep-highest-80": lambda: d20.pool(160).highest(80).sum(),
    "200d6-sum": lambda: d6.pool(200).sum(),
    "500d6-count-4": lambda: 500 @ (d6 >= 4),
    "20d20-keep-highest-10": lambda: d20.pool(20).highest(10).sum(),
    "100d6-keep-highest-50": lambda: d6.pool(100).highest(50).sum(),
    "pairs-10d6-10d6": lambda: d6.pool(10).sort_pair('>', d6.pool(10)).size(),
    "6d10-explode-depth-4-keep-highest-3": lambda: d10.explode(depth=4).pool(6).highest(3).sum(),
    "10d10-explode-depth-4-keep-highest-5": lambda: d10.explode(depth=4).pool(10).highest(5).sum(),
    "6d10-explode-keep-highest-3": lambda: d10.explode(depth=20).pool(6).highest(3).sum(),
    "beats-5d20-5d20": lambda: d20.pool(5).versus_all('>', d20.pool(5)).size(),
    "5d10-count-7-less-ones": lambda: 5 @ d10.map(lambda x: (x >= 7) - (x == 1)),
}


def main():
    name = sys.argv[1]
    start = time.perf_counter()
    result = QUERIES[name]()
    # A joint result's marginals are not one mean: its probabilities are computed all
    # the same.
    try:
        mean = float(result.mean())
    except Exception:
        mean = len(result)
    took = time.perf_counter() - start
    print(f"{name}\t{took:.4f}\t{mean}")


if __name__ == "__main__":
    main()

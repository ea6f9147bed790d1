"""Time one query in icepool in a fresh process, the import excluded.

Usage: python icepool_time.py NAME
Prints: NAME<TAB>seconds<TAB>mean. The queries are the rollsim expressions of
benches/icepool/compare.sh written in icepool's own terms.
"""
import sys
import time

import icepool
from icepool import d4, d6, d10, d20


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


def again_chain(tally):
    """One d10 of a 10-again pool read by `tally` summed over its chain: a 10 adds a die
    (at most 20 more). The 10 is marked (1001 plus its tally) so that the chain explodes
    on it alone; the chain's total is then 1001 per 10 plus the last die's tally."""
    marked = d10.map(lambda x: 1001 + tally(x) if x == 10 else tally(x))
    chain = marked.explode([1001 + tally(10)], depth=20)

    # Each 10 adds 1001 and its tally, the last die its tally (-1 to 1): 1001 per 10
    # taken off leaves the tallies.
    return chain.map(lambda total: total - 1001 * ((total + 1) // 1001))


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
    "4d6-drop-lowest": lambda: d6.pool(4).highest(3).sum(),
    "2d20-highest": lambda: d20.pool(2).highest(1).sum(),
    "10d10-count-8": lambda: 10 @ (d10 >= 8),
    "5d6-maxset": lambda: d6.pool(5).largest_count(),
    "d4-d6": lambda: d4 @ d6,
    "d6-explode": lambda: d6.explode(depth=20),
    "3d6-less-2d6-plus-4": lambda: (3 @ d6) - (2 @ d6 + 4),
    "5d10-again-10-count-7": lambda: 5 @ again_chain(lambda x: int(x >= 7)),
    "5d10-again-10-ones-cancel": lambda: 5 @ again_chain(lambda x: (x >= 7) - (x == 1)),
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

"""How long a notebook waits for a small roll: `rollsim.roll("3d6", exact_only=True)`
in a warm process, median of many calls (issue: under 0.2 ms), beside the same roll
with its distribution's DataFrame read, and the command line's path for comparison.

    python python/bench/roll_latency.py [CALLS]
"""

import statistics
import sys
import time

import rollsim
from rollsim import _rollsim


def median_ms(f, calls: int) -> float:
    for _ in range(50):
        f()
    times = []
    for _ in range(calls):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1e3


def main() -> None:
    calls = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    rows = [
        ("roll(\"3d6\", exact_only=True)", lambda: rollsim.roll("3d6", exact_only=True)),
        ("  ... and its .distribution", lambda: rollsim.roll("3d6", exact_only=True).distribution),
        ("  ... and its .headline", lambda: rollsim.roll("3d6", exact_only=True).headline),
        ("the command line's path (tables)", lambda: _rollsim.tables(["-q", "roll", "3d6", "--exact-only"])),
        ("the command line, printed (run_cli)", lambda: _rollsim.run_cli(["-q", "roll", "3d6", "--exact-only"])),
    ]
    for name, f in rows:
        print(f"{name:40} {median_ms(f, calls):.3f} ms")


if __name__ == "__main__":
    main()

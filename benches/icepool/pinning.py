"""Every timed process of a comparison on one core (mechanics.py, python_compare.py)."""
import os


def one_core():
    """Every timed process on one core: the first this one may use, or
    `ROLLSIM_BENCH_CPU`. On a machine whose cores differ (this one's second core runs
    about half as fast as its first) the scheduler put a fresh process on either, and
    a row's median of three fell on the slow core or not from run to run (the Star
    Wars: X-Wing row 0.11 ms on the first core, 0.23 ms on the second). Both tools run
    on the same core, so a ratio compares like with like. The core, or None where the
    system cannot pin."""
    if not hasattr(os, "sched_setaffinity"):
        return None
    cpu = int(os.environ.get("ROLLSIM_BENCH_CPU", min(os.sched_getaffinity(0))))
    os.sched_setaffinity(0, {cpu})
    return cpu

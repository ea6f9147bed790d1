"""The Python package against the command line: every number a call returns equals the
CSV `rollsim` writes for the same command; exact values against an enumerator written
here; errors, interrupts, types and charts as the package promises (docs/python.md)."""

from __future__ import annotations

import itertools
import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from fractions import Fraction
from pathlib import Path

import polars as pl
import pytest

import rollsim

ROOT = Path(__file__).resolve().parents[2]
CONFIGS = ROOT / "configs"
BIN = Path(os.environ.get("ROLLSIM_BIN", ROOT / "target" / "release" / "rollsim"))


def cli(args: list[str], tmp_path: Path) -> dict[str, pl.DataFrame]:
    """The command line's CSVs for `args`, by relative name without `.csv`."""
    out = tmp_path / f"cli-{len(list(tmp_path.iterdir()))}"
    quiet = ["-q"] if args[0] in ("run", "roll") else []
    tables = ["--format", "csv"] if args[0] in ("run", "roll") else []
    subprocess.run(
        [str(BIN), *args, *quiet, "--no-plots", *tables, "-o", str(out)],
        check=True,
        capture_output=True,
    )
    return {str(p.relative_to(out).with_suffix("")): pl.read_csv(p) for p in sorted(out.rglob("*.csv"))}


def assert_same(py: pl.DataFrame, csv: pl.DataFrame) -> None:
    """The same columns in the same order, the same rows, every cell equal (floats as the
    CSV writes them: to the last digit it prints)."""
    assert py.columns == csv.columns
    assert py.height == csv.height
    for name in py.columns:
        a, b = py[name].to_list(), csv[name].to_list()
        for x, y in zip(a, b):
            if isinstance(x, float) or isinstance(y, float):
                assert x is not None and y is not None, (name, x, y)
                assert x == pytest.approx(y, rel=1e-12, abs=1e-15), (name, x, y)
            else:
                # A string column the CSV reader took as numbers (values such as "12").
                assert x == y or str(x) == str(y), (name, x, y)


def test_a_roll_is_the_clis_roll_table_for_table(tmp_path: Path) -> None:
    r = rollsim.roll("4d6 drop lowest", trials=100_000, seed=7)
    want = cli(["roll", "4d6 drop lowest", "-n", "100000", "--seed", "7"], tmp_path)
    assert_same(r.distribution, want["distribution"])
    assert_same(r.summary, want["summary"])
    assert_same(r.headline_table, want["headline"])
    exact = rollsim.roll("2d20 highest + 5 >= 15", exact_only=True)
    want = cli(["roll", "2d20 highest + 5 >= 15", "--exact-only"], tmp_path)
    assert_same(exact.distribution, want["distribution"])
    vs = rollsim.roll("3d6", vs="2d6 + 4", exact_only=True)
    want = cli(["roll", "3d6", "--vs", "2d6 + 4", "--exact-only"], tmp_path)
    assert_same(vs.distribution, want["distribution"])


def enumerate_4d6_drop_lowest() -> dict[int, Fraction]:
    counts = Counter(sum(sorted(d)[1:]) for d in itertools.product(range(1, 7), repeat=4))
    return {v: Fraction(c, 6**4) for v, c in counts.items()}


def test_exact_values_are_the_enumerators() -> None:
    r = rollsim.roll("4d6 drop lowest", exact_only=True)
    d = r.distribution
    want = enumerate_4d6_drop_lowest()
    assert sorted(int(v) for v in d["value"]) == sorted(want)
    for value, exact, frac in zip(d["value"], d["exact"], d["exact_fraction"]):
        assert Fraction(frac) == want[int(value)]
        assert exact == pytest.approx(float(want[int(value)]), rel=1e-15)
    mean = sum(v * p for v, p in want.items())
    # The table's mean is rounded to 11 decimals; its fraction is the exact one.
    assert r.mean == pytest.approx(float(mean), abs=1e-11)
    assert r.summary["exact_mean_fraction"][0] == f"{mean.numerator}/{mean.denominator}"


@pytest.mark.parametrize(
    "config, scenario, extra",
    [
        ("rush.toml", "slam-orc-vs-human-guard", {}),
        ("rush.toml", "slam-orc-vs-human-guard", {"units.orc.strength": 2}),
        ("descent.toml", "bare-hands-vs-skeleton", {}),
        ("dice-examples.toml", "fighter-hits-orc", {}),
    ],
)
def test_a_config_run_is_the_clis(tmp_path: Path, config: str, scenario: str, extra: dict) -> None:
    c = rollsim.load(CONFIGS / config, set=extra)
    assert scenario in c.scenarios
    r = c.run(scenario, trials=50_000, seed=3)
    sets = [a for k, v in extra.items() for a in ("--set", f"{k}={v}")]
    want = cli(["run", str(CONFIGS / config), "-s", scenario, *sets, "-n", "50000", "--seed", "3"], tmp_path)
    assert_same(r.distribution, want["distribution"])
    assert_same(r.summary, want["summary"])
    assert_same(r.headline_table, want["headline"])


def test_the_scenarios_are_what_rollsim_list_names() -> None:
    listed = subprocess.run(
        [str(BIN), "list", str(CONFIGS / "rush.toml")], check=True, capture_output=True, text=True
    ).stdout
    names = [line.split("\t")[0] for line in listed.splitlines() if line]
    assert rollsim.load(CONFIGS / "rush.toml").scenarios == names


def test_a_sweep_is_the_clis(tmp_path: Path) -> None:
    c = rollsim.load(CONFIGS / "rush.toml")
    s = c.sweep("slam-orc-vs-human-guard", "attacker.strength", "2..6", exact_only=True)
    want = cli(
        ["sweep", str(CONFIGS / "rush.toml"), "-s", "slam-orc-vs-human-guard", "--vary", "attacker.strength=2..6", "--exact-only"],
        tmp_path,
    )
    assert_same(s, next(iter(want.values())))
    assert s.height == 5
    # Handed over typed, not read back from a CSV: nothing was simulated, yet the
    # estimate and interval columns are floats (empty), the key a number.
    assert s.schema["estimate"] == pl.Float64 and s.schema["ci_low"] == pl.Float64
    assert s["estimate"].null_count() == 5
    assert s.schema["attacker.strength"] == pl.Int64
    assert s["attacker.strength"].to_list() == [2, 3, 4, 5, 6]


def test_balance_tables_are_the_clis_in_memory(tmp_path: Path) -> None:
    rush = str(CONFIGS / "rush.toml")
    slam = "slam-orc-vs-human-guard"
    c = rollsim.load(rush)
    for got, args in [
        (c.compare(slam, exact_only=True), ["compare", rush, "-s", slam, "--exact-only"]),
        (c.roster(slam, exact_only=True), ["roster", rush, "-s", slam, "--exact-only"]),
        ({"s": c.sensitivity(slam, exact_only=True)}, ["sensitivity", rush, "-s", slam, "--exact-only"]),
        ({"e": c.equalize(slam, exact_only=True)}, ["equalize", rush, "-s", slam, "--exact-only"]),
        (c.compare(slam, response="best", exact_only=True), ["compare", rush, "-s", slam, "--response", "best", "--exact-only"]),
        (
            rollsim.load(CONFIGS / "dice-examples.toml").roster("fighter-duels-orc", exact_only=True, count="hp"),
            ["roster", str(CONFIGS / "dice-examples.toml"), "-s", "fighter-duels-orc", "--exact-only", "--count", "hp"],
        ),
    ]:
        want = cli(args, tmp_path)
        if set(got) <= {"s", "e"}:
            got = dict(zip(want, got.values()))
        assert sorted(got) == sorted(want), (args, list(got), list(want))
        for name, df in got.items():
            assert_same(df, want[name])
    wide = c.compare(slam, exact_only=True)[f"matrix-{slam}-wide"]
    assert wide.schema["orc"] == pl.Float64 and wide.height == 5


def test_a_bad_expression_raises_the_clis_message() -> None:
    with pytest.raises(rollsim.RollsimError) as e:
        rollsim.roll("3d6 keep highst 2")
    said = str(e.value)
    assert isinstance(e.value, ValueError)
    assert e.value.exit_code == 2
    assert "expected `highest`, `lowest` or `middle`, found `highst`" in said
    assert "^" in said
    cli_said = subprocess.run([str(BIN), "roll", "3d6 keep highst 2"], capture_output=True, text=True)
    assert cli_said.returncode == 2
    assert said in cli_said.stderr
    with pytest.raises(rollsim.RollsimError, match="no scenario `slam`"):
        rollsim.load(CONFIGS / "rush.toml").run("slam")


def test_keyboard_interrupt_stops_a_long_run_within_half_a_second() -> None:
    sent: list[float] = []

    def interrupt() -> None:
        sent.append(time.monotonic())
        os.kill(os.getpid(), signal.SIGINT)

    timer = threading.Timer(1.0, interrupt)
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        rollsim.roll("10d6 explode 6 sum", trials=10**10)
    took = time.monotonic() - sent[0]
    assert took < 0.5, took


def test_ctrl_c_reaches_a_handler_installed_after_import_and_still_stops_the_run() -> None:
    # A call runs on the calling thread, SIGINT itself cancelling it; a handler a
    # notebook installs later (ipykernel does, around every cell) replaces ours, which
    # the next call puts back in front of it: the run stops within half a second, and
    # the designer's handler is the one that answers.
    heard: list[float] = []

    def mine(signum, frame):  # noqa: ANN001
        heard.append(time.monotonic())
        raise KeyboardInterrupt("mine")

    before = signal.signal(signal.SIGINT, mine)
    try:
        sent: list[float] = []

        def interrupt() -> None:
            sent.append(time.monotonic())
            os.kill(os.getpid(), signal.SIGINT)

        timer = threading.Timer(0.5, interrupt)
        timer.start()
        with pytest.raises(KeyboardInterrupt, match="mine"):
            rollsim.roll("10d6 explode 6 sum", trials=10**10)
        assert len(heard) == 1
        assert heard[0] - sent[0] < 0.5, heard[0] - sent[0]
        # The handler the designer installed is still the one Python calls.
        assert signal.getsignal(signal.SIGINT) is mine
    finally:
        signal.signal(signal.SIGINT, before)
    # And a call after it runs to its answer: nothing of the interrupt is left over.
    assert rollsim.roll("2d6", exact_only=True).mean == 7


def test_with_sigint_ignored_a_call_runs_and_answers() -> None:
    # No handler of the interpreter's to hand SIGINT on to: the call goes to a worker
    # (Ctrl-C cannot reach it anyway), and SIGINT stays ignored.
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        assert rollsim.roll("3d6", exact_only=True).mean == 10.5
        os.kill(os.getpid(), signal.SIGINT)
        assert rollsim.roll("d6", exact_only=True).mean == 3.5
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, before)


def test_a_call_from_another_thread_answers_as_the_main_threads_does() -> None:
    # Off the main thread a call goes to a worker (the interpreter runs its handlers on
    # the main thread only): the same numbers.
    got: list[float] = []
    t = threading.Thread(target=lambda: got.append(rollsim.roll("4d6 drop lowest", exact_only=True).mean))
    t.start()
    t.join()
    assert got == [rollsim.roll("4d6 drop lowest", exact_only=True).mean]
    assert abs(got[0] - 15869 / 1296) < 1e-9


def test_the_tables_types_are_the_tables_own() -> None:
    r = rollsim.roll("2d6", trials=10_000)
    assert r.distribution.schema == pl.Schema(
        {
            "scenario": pl.String,
            "metric": pl.String,
            # A number where every value is one: 2d6's sums sort as numbers.
            "value": pl.Int64,
            "count": pl.UInt64,
            "trials": pl.UInt64,
            "probability": pl.Float64,
            "ci_low": pl.Float64,
            "ci_high": pl.Float64,
            "exact": pl.Float64,
            "exact_fraction": pl.String,
        }
    )
    assert r.summary.columns == [
        "scenario", "metric", "mean", "mean_ci_low", "mean_ci_high", "exact_mean",
        "trials", "seed", "outcomes", "exact_mean_fraction",
    ]
    assert r.summary.schema["mean"] == pl.Float64
    assert r.headline_table.schema["exact"] == pl.Float64
    # The Slam's draw, as the README quotes it.
    slam = rollsim.load(CONFIGS / "rush.toml").run("slam-orc-vs-human-guard", exact_only=True)
    fractions = dict(zip(slam.distribution["value"], slam.distribution["exact_fraction"]))
    assert fractions["draw"] == "227/1296"


def test_a_table_taken_without_the_constructors_search_is_the_constructors() -> None:
    # The installed polars has the reader `_frame` calls straight: the quick path is
    # the one taken, and it gives what `pl.DataFrame` gives, table by table.
    assert rollsim._PySeries is not None
    held = rollsim._roll_held("let p = 3d6 in p highest + p count 6", trials=2_000)
    for name, table in held.tables():
        assert rollsim._frame(table).equals(pl.DataFrame(table)), name
        assert rollsim._frame(table).schema == pl.DataFrame(table).schema, name


def test_a_chart_is_the_clis_png_and_a_notebook_shows_it(tmp_path: Path) -> None:
    r = rollsim.roll("3d6", exact_only=True)
    png = r.plot()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert png._repr_png_() == bytes(png)
    out = tmp_path / "charts"
    subprocess.run([str(BIN), "roll", "3d6", "--exact-only", "-q", "-o", str(out)], check=True, capture_output=True)
    drawn = sorted(out.rglob("value.png"))
    assert drawn and drawn[0].read_bytes() == bytes(png)
    assert "3d6" in r._repr_html_() or "<table" in r._repr_html_()
    assert "exact" in repr(r)


def test_every_option_is_a_keyword_and_a_misspelt_one_raises() -> None:
    with pytest.raises(TypeError, match="did you mean `trials`"):
        rollsim.roll("3d6", trails=5)
    rush = rollsim.load(CONFIGS / "rush.toml")
    with pytest.raises(TypeError, match="did you mean `response`"):
        rush.compare("slam-orc-vs-human-guard", respons="best", exact_only=True)
    # Options past exact_only, trials and seed reach the command: the defender's best
    # response, and a roster priced on a count stat (suggested point costs).
    best = rush.compare("slam-orc-vs-human-guard", response="best", exact_only=True)
    long = best["matrix-slam-orc-vs-human-guard-best"]
    assert long["response"].drop_nulls().len() > 0
    dice = rollsim.load(CONFIGS / "dice-examples.toml")
    roster = dice.roster("fighter-duels-orc", exact_only=True, count="hp")
    costs = roster["costs-fighter-duels-orc"]
    assert costs.schema["suggested_cost"] == pl.Float64 and costs.height == 2


def test_values_sort_as_numbers_and_the_headline_is_a_number() -> None:
    r = rollsim.roll("3d6", exact_only=True)
    assert r.distribution.schema["value"] == pl.Int64
    assert r.distribution.sort("value")["value"].to_list() == list(range(3, 19))
    # A roll's headline is P(at least T) (the label says T): a number, the exact chance,
    # here summed again from the distribution's exact column.
    h = r.headline_table.row(0, named=True)
    t = int(h["headline"].removeprefix("P(at least ").removesuffix(")"))
    assert isinstance(r.headline, float)
    want = r.distribution.filter(pl.col("value") >= t)["exact"].sum()
    assert r.headline == pytest.approx(want, abs=1e-12)
    # Words stay words.
    slam = rollsim.load(CONFIGS / "rush.toml").run("slam-orc-vs-human-guard", exact_only=True)
    assert slam.distribution.schema["value"] == pl.String


@pytest.mark.parametrize(
    "expr, opts",
    [
        ("3d6", {"exact_only": True}),
        ("4d6 drop lowest", {"trials": 20_000, "seed": 7}),
        ("3d6", {"vs": "2d6 + 4", "trials": 10_000, "seed": 3, "threads": 1}),
        ("let p = 5d10 again 10 in p count >= 7 - p count 1", {"trials": 5_000, "seed": 11}),
    ],
)
def test_the_lean_roll_is_the_command_lines_roll(expr: str, opts: dict) -> None:
    # `roll` with plain values skips the command line's parser; its tables, headline and
    # chart are those of the same roll through the parser, cell for cell and byte for byte.
    lean = rollsim.roll(expr, **opts)
    parsed = rollsim.Result(["-q", "roll", expr] + rollsim._flags("roll", opts))
    assert lean.tables.keys() == parsed.tables.keys()
    for name, df in parsed.tables.items():
        assert lean.tables[name].equals(df, null_equal=True), name
    assert lean.headline == parsed.headline
    assert bytes(lean.plot()) == bytes(parsed.plot())
    # A value only the parser reads (a count written as text) goes its way, same numbers.
    if "trials" in opts:
        text = rollsim.roll(expr, **{**opts, "trials": str(opts["trials"])})
        assert text.distribution.equals(lean.distribution, null_equal=True)


def test_a_chart_is_drawn_from_the_result_it_holds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    r = rollsim.roll("4d6 drop lowest", trials=20_000, seed=5)
    # Nothing runs again: every way into the command line is closed before plot().
    def closed(*_: object, **__: object) -> None:
        raise AssertionError("plot() ran a command again")
    for name in ("run_cli", "_held", "_roll_held", "_tables_of"):
        monkeypatch.setattr(rollsim, name, closed)
    both = {which: bytes(r.plot(which)) for which in ("distribution", "at_least")}
    monkeypatch.undo()
    out = tmp_path / "charts"
    subprocess.run(
        [str(BIN), "roll", "4d6 drop lowest", "-n", "20000", "--seed", "5", "-q", "-o", str(out)],
        check=True,
        capture_output=True,
    )
    assert both["distribution"] == next(out.rglob("value.png")).read_bytes()
    assert both["at_least"] == next(out.rglob("value_at_least.png")).read_bytes()
    with pytest.raises(ValueError, match="distribution"):
        r.plot("pie")


def test_a_two_key_sweep_and_an_overlay_are_the_clis(tmp_path: Path) -> None:
    rush = str(CONFIGS / "rush.toml")
    slam = "slam-orc-vs-human-guard"
    grid = rollsim.load(rush).sweep(slam, {"attacker.strength": "2..4", "defender.strength": "2..3"}, exact_only=True)
    want = cli(
        ["sweep", rush, "-s", slam, "--vary", "attacker.strength=2..4", "--vary", "defender.strength=2..3", "--exact-only"],
        tmp_path,
    )
    assert_same(grid, next(iter(want.values())))
    assert grid.height == 6
    assert grid.schema["attacker.strength"] == pl.Int64 and grid.schema["defender.strength"] == pl.Int64
    variant = f"{rush}:{slam}:attacker.strength=2"
    got = rollsim.overlay(f"{rush}:{slam}", variant, trials=10_000, seed=3)
    want = cli(["overlay", f"{rush}:{slam}", variant, "-n", "10000", "--seed", "3"], tmp_path)
    assert sorted(got) == sorted(want)
    for name, df in got.items():
        assert_same(df, want[name])
    with pytest.raises(TypeError, match="at least two"):
        rollsim.overlay(f"{rush}:{slam}")
    with pytest.raises(TypeError, match="did you mean `metric`"):
        rollsim.overlay(f"{rush}:{slam}", variant, metrc="x")


def _child_headline(expr: str) -> float:
    return rollsim.roll(expr, exact_only=True).headline


def test_a_forked_process_rolls_too() -> None:
    # The parent's worker threads are not copied by a fork (multiprocessing's default
    # on Linux): the child starts its own instead of waiting for ever.
    import multiprocessing

    want = rollsim.roll("3d6", exact_only=True).headline
    with multiprocessing.get_context("fork").Pool(1) as pool:
        got = pool.apply_async(_child_headline, ("3d6",)).get(timeout=60)
    assert got == want


def test_the_trial_cap_holds_on_every_path() -> None:
    for trials in (20_000_000_000, "20000000000"):
        with pytest.raises(rollsim.RollsimError, match="--no-trial-cap"):
            rollsim.roll("d6", trials=trials)
    with pytest.raises(rollsim.RollsimError, match="--no-trial-cap"):
        rollsim.load(CONFIGS / "rush.toml").run("slam-orc-vs-human-guard", trials=20_000_000_000)
    # Zero trials is the command line's refusal, in its words, on either path.
    with pytest.raises(rollsim.RollsimError) as lean:
        rollsim.roll("d6", trials=0)
    with pytest.raises(rollsim.RollsimError) as parsed:
        rollsim.roll("d6", trials="0")
    assert str(lean.value) == str(parsed.value)


def test_a_switch_is_true_or_false():
    """`exact_only=0` or `"no"` is no switch (it once ran exact only): a TypeError naming
    the keyword, as a misspelt keyword is; True and False do what they say."""
    for bad in (0, 1, "no", "yes", 1.0):
        with pytest.raises(TypeError, match="`exact_only` takes True or False"):
            rollsim.roll("d6", exact_only=bad, trials=1000)
    on = rollsim.roll("2d6", exact_only=True)
    off = rollsim.roll("2d6", exact_only=False, trials=2000)
    assert on.distribution["count"].null_count() == on.distribution.height
    assert off.distribution["count"].sum() == 2000


def cli_pngs(args: list[str], tmp_path: Path) -> dict[str, bytes]:
    """The PNG charts the command line writes for `args`, by file stem."""
    out = tmp_path / f"png-{len(list(tmp_path.iterdir()))}"
    subprocess.run([str(BIN), *args, "-o", str(out)], check=True, capture_output=True)
    return {p.stem: p.read_bytes() for p in sorted(out.rglob("*.png"))}


def test_plot_of_a_sweep_a_compare_and_a_roster_is_the_clis_png(tmp_path: Path) -> None:
    rush = rollsim.load(CONFIGS / "rush.toml")
    slam = "slam-orc-vs-human-guard"
    sweep = rush.sweep(slam, "attacker.strength", "2..4", exact_only=True)
    # Still a DataFrame for everything polars does, with the command line's chart.
    assert isinstance(sweep, pl.DataFrame) and sweep.height == 3
    want = cli_pngs(["sweep", str(CONFIGS / "rush.toml"), "-s", slam, "--vary", "attacker.strength=2..4", "--exact-only"], tmp_path)
    assert list(want) == ["sweep-slam-orc-vs-human-guard-attacker_strength"]
    assert sweep.plot() == next(iter(want.values()))
    assert sweep.plot()._repr_png_()[:4] == b"\x89PNG"

    compare = rush.compare(slam, trials=20_000, seed=5)
    want = cli_pngs(["compare", str(CONFIGS / "rush.toml"), "-s", slam, "-n", "20000", "--seed", "5"], tmp_path)
    assert compare.charts() == want and compare.plot() == want["matrix-slam-orc-vs-human-guard"]
    assert isinstance(compare["matrix-slam-orc-vs-human-guard"], pl.DataFrame)

    dice = CONFIGS / "dice-examples.toml"
    roster = rollsim.load(dice).roster("fighter-duels-orc", exact_only=True, count="hp")
    want = cli_pngs(["roster", str(dice), "-s", "fighter-duels-orc", "--exact-only", "--count", "hp"], tmp_path)
    assert len(want) == 5 and roster.charts() == want
    assert roster.plot("ratings") == want["roster-fighter-duels-orc-ratings"]
    assert roster.plot("costs-fighter-duels-orc-exchange") == want["costs-fighter-duels-orc-exchange"]
    with pytest.raises(KeyError, match="did you mean"):
        roster.plot("ratngs-fighter")


def test_run_cli_without_a_command_writes_nothing_and_version_answers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(rollsim.RollsimError, match="main job") as e:
        rollsim.run_cli([])
    assert e.value.exit_code == 2
    with pytest.raises(rollsim.RollsimError, match="main job"):
        rollsim.run_cli(["-q"])
    assert list(tmp_path.iterdir()) == []
    version = subprocess.run([str(BIN), "--version"], check=True, capture_output=True, text=True).stdout
    assert rollsim.run_cli(["--version"]) == version == f"rollsim {rollsim.__version__}\n"
    assert rollsim.__version__ == "0.1.0"
    assert "Usage: rollsim roll" in rollsim.run_cli(["roll", "--help"])
    assert list(tmp_path.iterdir()) == []


def test_roll_takes_precision_and_a_value_starting_with_a_minus_is_a_value() -> None:
    r = rollsim.roll("3d6", precision=0.01, seed=3)
    d = r.distribution
    # Trials enough that every interval is within ±0.01, and no more than a round past it.
    assert (((d["ci_high"] - d["ci_low"]) / 2) <= 0.01).all()
    assert 131_072 <= d["trials"][0] < 1_000_000
    with pytest.raises(rollsim.RollsimError) as e:
        rollsim.roll("3d6", seed=-1)
    assert "invalid value '-1' for '--seed" in str(e.value) and "-- -1" not in str(e.value)
    # `vs` starting with a minus is the opposing roll.
    assert rollsim.roll("d6", vs="-d6", exact_only=True).distribution.height > 0


def test_the_notes_the_command_line_prints_reach_the_result() -> None:
    # Two rounds of a d2 can never reach 10: the limit of 100 rounds always stops it.
    capped = rollsim.roll("repeat t = 0 until t >= 1000 do t = t + d2 then rounds", exact_only=True)
    assert capped.notes == ["roll: exact probability that a `repeat` reached its limit of rounds unfinished (a roll of the dice stops there too): 1.000e0"]
    assert "note: roll: exact probability" in repr(capped)
    assert rollsim.roll("3d6", exact_only=True).notes == []
    # A precision the cap stops short of is said, as the command line warns.
    short = rollsim.roll("3d6", precision=0.0001, max_trials=1000)
    assert len(short.notes) == 1 and "precision 0.0001 not reached" in short.notes[0]


@pytest.mark.parametrize(
    "config, key, near",
    [
        ("dice-examples.toml", "units.fighter.hpp", "hp"),
        ("rush.toml", "units.human_striker.strenght", "strength"),
        ("skirmish.toml", "units.archers.moral", "morale"),
        ("dozen.toml", "characters.thief.dxx", "dx"),
        ("descent.toml", "heroes.fighter.power_dic", "power_dice"),
    ],
)
def test_a_misspelt_key_in_set_is_refused_with_the_nearest_name(config: str, key: str, near: str) -> None:
    with pytest.raises(rollsim.RollsimError, match=f"`{near}`") as e:
        rollsim.load(CONFIGS / config, set={key: 3})
    assert e.value.exit_code == 2 and key.rsplit(".", 1)[1] in str(e.value)


def test_rolls_soon_after_the_import_clear_no_fresh_huge_page() -> None:
    # docs/python.md: the import writes the allocator's first pages, so that rolls made
    # soon after it do not pay the kernel for clearing a fresh 2 MiB page (0.2 ms each).
    # In a fresh process, five short rows of the mechanics table (an explosion read on a
    # chart, Farkle's scored throw, two pools of faces, Cee-lo) leave the process's huge
    # pages as the import left them; without the pages written, the first of them took
    # one more.
    enabled = Path("/sys/kernel/mm/transparent_hugepage/enabled")
    if not enabled.exists() or "[never]" in enabled.read_text():
        pytest.skip("no transparent huge pages here")
    # The huge pages of the allocator's arenas: the anonymous mappings of 1 GiB and more
    # (the interpreter's and polars' heaps are smaller, and where the system gives huge
    # pages without being asked, theirs are not what this measures).
    child = (
        "import sys, rollsim\n"
        "def huge():\n"
        "    total, size = 0, 0\n"
        "    for l in open('/proc/self/smaps'):\n"
        "        if l.startswith('Size:'):\n"
        "            size = int(l.split()[1])\n"
        "        elif l.startswith('AnonHugePages:') and size >= 1 << 20:\n"
        "            total += int(l.split()[1])\n"
        "    return total\n"
        "before = huge()\n"
        "for expr in sys.argv[1:]:\n"
        "    rollsim.roll(expr, exact_only=True).distribution\n"
        "print(before, huge())\n"
    )
    rows = [
        "let t = d20 explode on 10, 20 in if t == 1 then -12 else if t == 2 then -10 else if t <= 4 then -8 else if t <= 6 then -5 else if t <= 8 then -2 else if t <= 10 then -1 else if t <= 12 then 0 else if t <= 14 then 1 else if t <= 20 then t - 13 else 8 + (t - 21) / 5",
        "d6 explode",
        "let p = 6d6 in let c1 = p count 1 in let c5 = p count 5 in let m = p maxset in if m == 6 then 3000 else if p sets 3 == 2 then 2500 else if p straight == 6 or p sets 2 == 3 or (m == 4 and p sets 2 == 2) then 1500 else (if m == 5 then 2000 else if m == 4 then 1000 else 1000 * (c1 == 3) + 200 * (p count 2 == 3) + 300 * (p count 3 == 3) + 400 * (p count 4 == 3) + 500 * (c5 == 3) + 600 * (p count 6 == 3)) + 100 * c1 * (c1 < 3) + 50 * c5 * (c5 < 3)",
        "let a = 3d{hammer*2, swords, support, support+support, crit} in let d = 1d{shield*2, dodge, support, support+support, crit} in if a count crit != d count crit then (if a count crit > d count crit then 1 else -1) else if a count hammer > d count shield then 1 else if a count hammer == d count shield and a count hammer + a count crit > 0 then 0 else -1",
        "let p = 3d6 in if p count 4 == 1 and p count 5 == 1 and p count 6 == 1 then 13 else if p count 1 == 1 and p count 2 == 1 and p count 3 == 1 then 0 else if p maxset == 3 then 6 + p mode else if p maxset == 2 then p sum - 2 * p mode else -1",
    ]
    out = subprocess.run([sys.executable, "-c", child, *rows], check=True, capture_output=True, text=True)
    before, after = (int(x) for x in out.stdout.split())
    if before == 0:
        pytest.skip("the allocator took no huge pages here")
    assert after == before, (before, after)

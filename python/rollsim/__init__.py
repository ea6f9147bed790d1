"""rollsim in a notebook: exact and Monte Carlo odds for tabletop dice games.

Every call runs the rollsim command line in-process (the same code as the ``rollsim``
binary, with Python's lock released while it computes) and reads the tables it writes
into polars DataFrames: the numbers, columns and error messages are the command line's.

    >>> import rollsim
    >>> r = rollsim.roll("4d6 drop lowest", exact_only=True)
    >>> r.distribution            # value, exact, exact_fraction, ... as `distribution.csv`
    >>> r.plot()                  # the PNG chart the command line draws

See docs/python.md in the repository.
"""

from __future__ import annotations

import html
import os
import tempfile
from pathlib import Path
from typing import Any, Iterable, Mapping, Optional

import polars as pl

from ._rollsim import RollsimError, run_cli, tables as _tables_of

__all__ = ["roll", "load", "Result", "Config", "Png", "RollsimError", "run_cli"]

DEFAULT_TRIALS = 1_000_000
DEFAULT_SEED = 2026


class Png(bytes):
    """A chart as PNG bytes; a notebook shows it."""

    def _repr_png_(self) -> bytes:
        return bytes(self)


def _run(args: list[str]) -> str:
    return run_cli([str(a) for a in args])


_DTYPES = {"str": pl.String, "u64": pl.UInt64, "i64": pl.Int64, "f64": pl.Float64}


def _frame(columns: list[tuple[str, str, list]]) -> pl.DataFrame:
    """A table from the native half's columns, with the table's own types."""
    return pl.DataFrame(
        {name: values for name, _, values in columns},
        schema={name: _DTYPES[dtype] for name, dtype, _ in columns},
    )


def _csvs(folder: Path) -> dict[str, pl.DataFrame]:
    return {
        str(p.relative_to(folder).with_suffix("")): pl.read_csv(p)
        for p in sorted(folder.rglob("*.csv"))
    }


class Result:
    """One command's tables: ``distribution``, ``summary`` and ``headline``, the same
    columns, types and numbers as the command line's ``distribution.csv``, ``summary.csv``
    and ``headline.csv`` (made by the same code, handed over in memory)."""

    def __init__(self, args: list[str]):
        self._args = args
        tables = {name: _frame(columns) for name, columns in _tables_of([str(a) for a in args])}
        self.distribution: pl.DataFrame = tables["distribution"]
        self.summary: pl.DataFrame = tables["summary"]
        self.headline: pl.DataFrame = tables["headline"]

    @property
    def mean(self) -> Optional[float]:
        """The first metric's mean: exact where there is an exact distribution."""
        row = self.summary.row(0, named=True)
        for key in ("exact_mean", "mean"):
            if row.get(key) is not None:
                return float(row[key])
        return None

    def plot(self, which: str = "distribution") -> Png:
        """The command line's chart of the first scenario (``distribution`` or
        ``at_least``), drawn by running the same command again with charts: same seed,
        same numbers."""
        with tempfile.TemporaryDirectory(prefix="rollsim-") as tmp:
            out = Path(tmp) / "out"
            _run(self._args + ["--format", "csv", "-o", str(out)])
            # A scenario's charts are METRIC.png and METRIC_at_least.png.
            at_least = which == "at_least"
            charts = [p for p in sorted(out.rglob("*.png")) if p.stem.endswith("_at_least") == at_least]
            if not charts:
                raise RollsimError(f"no `{which}` chart was drawn")
            return Png(charts[0].read_bytes())

    def _headline_text(self) -> str:
        h = self.headline.row(0, named=True)
        value = h.get("exact")
        how = "exact"
        if value is None:
            value, how = h.get("probability"), "Monte Carlo"
        frac = h.get("exact_fraction")
        label = h.get("headline") or h.get("label") or "headline"
        text = f"{label} = {value:.4%} ({how}" if value is not None else f"{label} ({how}"
        return text + (f", {frac})" if frac else ")")

    def __repr__(self) -> str:
        return f"{self._headline_text()}\n{self.distribution}"

    def _repr_html_(self) -> str:
        return f"<p><b>{html.escape(self._headline_text())}</b></p>" + self.distribution._repr_html_()


def _options(
    exact_only: bool, trials: Optional[int], seed: Optional[int], quiet: bool = True
) -> list[str]:
    # The balance commands print no progress bars: they take no `-q`.
    args = ["-q"] if quiet else []
    if exact_only:
        args.append("--exact-only")
    if trials is not None:
        args += ["-n", str(int(trials))]
    if seed is not None:
        args += ["--seed", str(int(seed))]
    return args


def roll(
    expr: str,
    exact_only: bool = False,
    trials: int = DEFAULT_TRIALS,
    seed: int = DEFAULT_SEED,
    vs: Optional[str] = None,
) -> Result:
    """``rollsim roll EXPR``: a dice expression's distribution, exact beside Monte Carlo
    (only exact with ``exact_only``); ``vs`` sets it against an opposing roll."""
    args = ["roll", expr] + _options(exact_only, trials, seed)
    if vs is not None:
        args += ["--vs", vs]
    return Result(args)


def _set_args(sets: Mapping[str, Any]) -> list[str]:
    out: list[str] = []
    for key, value in sets.items():
        if isinstance(value, bool):
            value = "true" if value else "false"
        out += ["--set", f"{key}={value}"]
    return out


class Config:
    """A config file, with ``set`` changes applied as ``--set KEY=VALUE`` would."""

    def __init__(self, path: str | os.PathLike, set: Optional[Mapping[str, Any]] = None):
        self.path = str(path)
        self.sets = _set_args(set or {})
        listed = _run(["list", self.path] + self.sets)
        self.scenarios: list[str] = [
            line.split("\t", 1)[0] for line in listed.splitlines() if line.strip()
        ]

    def run(
        self,
        name: str,
        exact_only: bool = False,
        trials: Optional[int] = None,
        seed: Optional[int] = None,
    ) -> Result:
        """``rollsim run CONFIG -s NAME``: a scenario or a group's tables."""
        return Result(["run", self.path, "-s", name] + self.sets + _options(exact_only, trials, seed))

    def _balance(self, command: str, scenario: str, extra: Iterable[str], **opts: Any) -> dict[str, pl.DataFrame]:
        args = [command, self.path, "-s", scenario] + self.sets + list(extra)
        args += _options(bool(opts.get("exact_only")), opts.get("trials"), opts.get("seed"), quiet=False)
        with tempfile.TemporaryDirectory(prefix="rollsim-") as tmp:
            out = Path(tmp) / "out"
            _run(args + ["--no-plots", "-o", str(out)])
            return _csvs(out)

    def compare(self, scenario: str, **opts: Any) -> dict[str, pl.DataFrame]:
        """``rollsim compare``: the matchup matrices, by CSV name."""
        return self._balance("compare", scenario, [], **opts)

    def sweep(self, scenario: str, key: str, values: str, **opts: Any) -> pl.DataFrame:
        """``rollsim sweep CONFIG -s NAME --vary KEY=VALUES``: one row per point."""
        tables = self._balance("sweep", scenario, ["--vary", f"{key}={values}"], **opts)
        return next(iter(tables.values()))

    def sensitivity(self, scenario: str, **opts: Any) -> pl.DataFrame:
        """``rollsim sensitivity``: what +1 die and one better stat step are worth."""
        return next(iter(self._balance("sensitivity", scenario, [], **opts).values()))

    def equalize(self, scenario: str, **opts: Any) -> pl.DataFrame:
        """``rollsim equalize``: the smallest change that brings the odds closest to even."""
        return next(iter(self._balance("equalize", scenario, [], **opts).values()))

    def roster(self, scenario: str, **opts: Any) -> dict[str, pl.DataFrame]:
        """``rollsim roster``: ratings, the Nash mix and the matrix, by CSV name."""
        return self._balance("roster", scenario, [], **opts)

    def __repr__(self) -> str:
        return f"Config({self.path!r}, {len(self.scenarios)} scenarios)"


def load(path: str | os.PathLike, set: Optional[Mapping[str, Any]] = None) -> Config:
    """A config file (``set``: changes as ``--set`` takes them, e.g.
    ``{"units.orc.strength": 2}``)."""
    return Config(path, set)

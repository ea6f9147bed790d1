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

import difflib
import html
import os
import tempfile
from pathlib import Path
from typing import Any, Iterable, Mapping, Optional

import polars as pl

from ._rollsim import RollsimError, options as _options_of, run_cli, tables as _tables_of

__all__ = ["roll", "load", "Result", "Config", "Png", "RollsimError", "run_cli"]



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


def _numeric_values(df: pl.DataFrame) -> pl.DataFrame:
    """`value` as integers where every value is one (a sum, a count), so that it sorts
    and plots as numbers; text where any value is a word (`win`, `draw`)."""
    if "value" not in df.columns or df.height == 0:
        return df
    as_int = df["value"].cast(pl.Int64, strict=False)
    if as_int.null_count() > df["value"].null_count():
        return df
    return df.with_columns(as_int.alias("value"))


class Result:
    """One command's tables: ``distribution``, ``summary`` and ``headline``, the same
    columns, types and numbers as the command line's ``distribution.csv``, ``summary.csv``
    and ``headline.csv`` (made by the same code, handed over in memory)."""

    def __init__(self, args: list[str]):
        self._args = args
        tables = {name: _frame(columns) for name, columns in _tables_of([str(a) for a in args])}
        self.distribution: pl.DataFrame = _numeric_values(tables["distribution"])
        self.summary: pl.DataFrame = tables["summary"]
        self.headline_table: pl.DataFrame = tables["headline"]
        first = self.headline_table.row(0, named=True) if self.headline_table.height else {}
        exact, estimate = first.get("exact"), first.get("probability")
        self.headline: Optional[float] = exact if exact is not None else estimate
        """The headline number of the first scenario (what the command line prints
        first): exact where there is an exact value, else the Monte Carlo estimate.
        ``headline_table`` has every scenario's, with intervals and fractions."""
        self.tables: dict[str, pl.DataFrame] = tables

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
        h = self.headline_table.row(0, named=True)
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


# Options that only say where and how files are written, or split a run over machines:
# a call hands its tables over in memory, so they have no keyword.
_NOT_HERE = {"out", "format", "no_plots", "charts", "shard", "shards", "quiet", "help", "version"}

_SPECS: dict[str, dict[str, tuple[bool, bool]]] = {}


def _spec(command: str) -> dict[str, tuple[bool, bool]]:
    """The command line's options of `command`, by keyword (`exact_only` for
    `--exact-only`): (takes a value, may be given several times)."""
    if command not in _SPECS:
        _SPECS[command] = {
            flag.replace("-", "_"): (takes, many)
            for flag, takes, many in _options_of(command)
            if flag.replace("-", "_") not in _NOT_HERE
        }
    return _SPECS[command]


def _flags(command: str, opts: Mapping[str, Any], fixed: Iterable[str] = ()) -> list[str]:
    """`opts` as `command`'s flags. A keyword left out (or None) is the command line's
    default; an unknown one raises TypeError naming the nearest valid keyword."""
    spec = _spec(command)
    args: list[str] = []
    for key, value in opts.items():
        if key not in spec or key in fixed:
            valid = sorted(k for k in spec if k not in fixed)
            near = difflib.get_close_matches(key, valid, n=1, cutoff=0.5)
            hint = f"; did you mean `{near[0]}`?" if near else f"; valid: {', '.join(valid)}"
            raise TypeError(f"{command}() got an unexpected keyword argument `{key}`{hint}")
        if value is None or value is False:
            continue
        takes, many = spec[key]
        flag = "--" + key.replace("_", "-")
        if not takes:
            args.append(flag)
            continue
        values = value if many and isinstance(value, (list, tuple)) else [value]
        for v in values:
            if isinstance(v, bool):
                v = "true" if v else "false"
            args += [flag, str(v)]
    return args


def roll(expr: str, **opts: Any) -> Result:
    """``rollsim roll EXPR``: a dice expression's distribution, exact beside Monte Carlo.
    Every option of the command is a keyword (``exact_only=True``, ``trials=100_000``,
    ``seed=7``, ``vs="2d6 + 4"``, ...), its default the command line's (1,000,000
    trials, seed 2026)."""
    return Result(["-q", "roll", expr] + _flags("roll", opts))


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

    def run(self, name: str, **opts: Any) -> Result:
        """``rollsim run CONFIG -s NAME``: a scenario or a group's tables; every option of
        ``run`` is a keyword, as for ``roll``."""
        args = ["-q", "run", self.path, "-s", name] + self.sets
        return Result(args + _flags("run", opts, ("scenarios", "set")))

    def _balance(self, command: str, scenario: str, extra: Iterable[str], **opts: Any) -> dict[str, pl.DataFrame]:
        args = [command, self.path, "-s", scenario] + self.sets + list(extra)
        args += _flags(command, opts, ("scenario", "set", "vary"))
        # In memory: the command line's own tables, typed as its CSVs are written.
        return {name: _frame(columns) for name, columns in _tables_of([str(a) for a in args])}

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

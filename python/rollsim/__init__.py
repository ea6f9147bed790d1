"""rollsim in a notebook: exact and Monte Carlo odds for tabletop dice games.

Every call runs the rollsim command line in-process (the same code as the ``rollsim``
binary, with Python's lock released while it computes) and hands its tables over in
memory as polars DataFrames: the numbers, columns and error messages are the command
line's. A ``roll`` whose options are plain values skips the command line's parser
(parse the expression, evaluate, frame); a result keeps its numbers in Rust, so its
``plot()`` is drawn from them without running anything again.

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
import pathlib
import tempfile
from typing import Any, Iterable, Mapping, Optional

import polars as pl

from ._rollsim import RollsimError, VERSION as __version__, held as _held, options as _options_of, roll_held as _roll_held, run_cli as _run_cli, tables as _tables_of, touch_heap as _touch_heap

__all__ = ["roll", "load", "overlay", "Result", "Config", "Png", "Tables", "Frame", "RollsimError", "run_cli", "__version__"]



class Png(bytes):
    """A chart as PNG bytes; a notebook shows it."""

    def _repr_png_(self) -> bytes:
        return bytes(self)


def run_cli(args: Iterable[str], main_job: bool = False) -> str:
    """``rollsim ARGS...`` as the binary runs it (``--help`` and ``--version`` included);
    what it prints on standard output. Files are written where the command writes them.
    The main job (no command: every shipped config into ``./reports/``, about 70 MB) runs
    only with ``main_job=True``: ``run_cli([])`` raises instead of filling the
    notebook's folder."""
    if not isinstance(main_job, bool):
        raise TypeError(f"run_cli() keyword `main_job` takes True or False, not {main_job!r}")
    return _run_cli([str(a) for a in args], main_job)


def _run(args: list[str]) -> str:
    return run_cli(args)


def _charts(args: list[str]) -> dict[str, "Png"]:
    """The charts the command line draws for ``args``, by file stem: the command run
    again (the same seed, so the same numbers) into a folder of its own that is then
    removed."""
    with tempfile.TemporaryDirectory(prefix="rollsim-charts-") as tmp:
        out = pathlib.Path(tmp) / "out"
        run_cli([str(a) for a in args] + ["-o", str(out)])
        return {p.stem: Png(p.read_bytes()) for p in sorted(out.rglob("*.png"))}


def _pick(charts: dict[str, "Png"], which: Optional[str], command: str) -> "Png":
    if not charts:
        raise RollsimError(f"{command} drew no chart here")
    if which is None:
        return next(iter(charts.values()))
    if which in charts:
        return charts[which]
    found = [k for k in charts if k.endswith(which) or which in k]
    if len(found) == 1:
        return charts[found[0]]
    near = difflib.get_close_matches(which, list(charts), n=1, cutoff=0.3)
    hint = f"; did you mean `{near[0]}`?" if near else ""
    raise KeyError(f"no chart `{which}`: the charts are {', '.join(charts)}{hint}")


class _Charted:
    """What a balance result shares: the command line that made it, and its charts."""

    _args: list[str]
    _drawn: Optional[dict[str, Png]]

    def charts(self) -> dict[str, Png]:
        """Every chart the command line draws for this result (its PNG bytes, equal to
        the files it writes), by file stem. The command runs again to draw them, with
        the same seed: the same numbers."""
        if self._drawn is None:
            self._drawn = _charts(self._args)
        return dict(self._drawn)

    def plot(self, which: Optional[str] = None) -> Png:
        """The command line's chart (the first, or the one whose file stem is or
        contains ``which``, e.g. ``"ratings"`` of a roster), as PNG bytes a notebook
        shows."""
        return _pick(self.charts(), which, self._args[0])


class Tables(_Charted, dict):
    """A balance command's tables by CSV name (``compare``, ``roster``), with the charts
    the command line draws beside them: ``plot()``, ``charts()``."""

    def __init__(self, tables: Mapping[str, pl.DataFrame], args: list[str]):
        super().__init__(tables)
        self._args = args
        self._drawn = None


class Frame(_Charted, pl.DataFrame):
    """A balance command's one table (``sweep``, ``sensitivity``, ``equalize``) as a
    polars DataFrame, whose ``plot()`` is the command line's chart (not polars' own)."""

    _args: list[str] = []
    _drawn: Optional[dict[str, Png]] = None

    @classmethod
    def _of(cls, df: pl.DataFrame, args: list[str]) -> "Frame":
        f = cls._from_pydf(df._df)
        f._args = args
        f._drawn = None
        return f


try:
    # What `pl.DataFrame(stream)` runs once it has found a stream among every kind of
    # input it takes: that search is 40 us of a small roll's 0.1 ms with its table.
    from polars._plr import PySeries as _PySeries
    from polars._utils.wrap import wrap_df as _wrap_df
except ImportError:  # another polars: its public constructor
    _PySeries = None


def _frame(table: Any) -> pl.DataFrame:
    """A table from the native half: an Arrow C stream (the Arrow PyCapsule interface),
    taken by polars in one call with the types the table has in Rust."""
    if _PySeries is not None:
        try:
            return _wrap_df(_PySeries.from_arrow_c_stream(table).struct_unnest())
        except AttributeError:
            pass
    return pl.DataFrame(table)


class Result:
    """One command's tables: ``distribution``, ``summary`` and ``headline``, the same
    columns, types and numbers as the command line's ``distribution.csv``, ``summary.csv``
    and ``headline.csv`` (made by the same code, handed over in memory). Each DataFrame
    is made when first read: a slider that asks only for ``headline`` pays for no frame."""

    def __init__(self, args: list[str], held: Any = None):
        self._args = args
        self._held = held if held is not None else _held([str(a) for a in args])
        self._columns: Optional[dict[str, Any]] = None
        self._frames: dict[str, pl.DataFrame] = {}
        self._tables: Optional[dict[str, pl.DataFrame]] = None
        self.headline: Optional[float] = self._held.headline()
        """The headline number of the first scenario (what the command line prints
        first): exact where there is an exact value, else the Monte Carlo estimate.
        ``headline_table`` has every scenario's, with intervals and fractions."""
        self.notes: list[str] = list(self._held.notes())
        """What the command line says beside the numbers, each led by its scenario's
        name: warnings, a precision not reached, and the probability that a limit cut
        a roll (an explosion's depth, a ``repeat``'s rounds)."""

    def _handed_over(self) -> dict[str, Any]:
        if self._columns is None:
            # Handed over at the first table read, every table at once.
            self._columns = dict(self._held.tables())
        return self._columns

    def _frame_of(self, name: str) -> pl.DataFrame:
        if name not in self._frames:
            # One of the three every run has is made alone (the others not made at
            # all); `tables` hands over every table at once.
            one = self._held.table(name) if self._columns is None else None
            self._frames[name] = _frame(one if one is not None else self._handed_over()[name])
        return self._frames[name]

    @property
    def distribution(self) -> pl.DataFrame:
        """Every value of every metric: exact, its fraction, Monte Carlo and its interval."""
        return self._frame_of("distribution")

    @property
    def summary(self) -> pl.DataFrame:
        """Per metric: mean, spread and quantiles, exact beside Monte Carlo."""
        return self._frame_of("summary")

    @property
    def headline_table(self) -> pl.DataFrame:
        """Every scenario's headline, with its interval and fraction."""
        return self._frame_of("headline")

    @property
    def tables(self) -> dict[str, pl.DataFrame]:
        """Every table, by the name of the CSV the command line writes."""
        if self._tables is None:
            self._tables = {name: self._frame_of(name) for name in self._handed_over()}
        return self._tables

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
        ``at_least``), drawn from the numbers this result holds: nothing is run again,
        and the bytes are those of the command line's PNG."""
        return Png(self._held.png(which))

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
        notes = "".join(f"note: {n}\n" for n in self.notes)
        return f"{self._headline_text()}\n{notes}{self.distribution}"

    def _repr_html_(self) -> str:
        notes = "".join(f"<p>note: {html.escape(n)}</p>" for n in self.notes)
        return f"<p><b>{html.escape(self._headline_text())}</b></p>" + notes + self.distribution._repr_html_()


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
        if value is None:
            continue
        takes, many = spec[key]
        flag = "--" + key.replace("_", "-")
        if not takes:
            # A switch is True or False, as on the command line it is there or not:
            # `exact_only=0` or `"no"` would otherwise read as switched on.
            if not isinstance(value, bool):
                raise TypeError(
                    f"{command}() keyword `{key}` takes True or False, not {value!r}"
                )
            if value:
                args.append(flag)
            continue
        if value is False:
            continue
        values = value if many and isinstance(value, (list, tuple)) else [value]
        for v in values:
            if isinstance(v, bool):
                v = "true" if v else "false"
            # One word: a value starting with a minus (`seed=-1`, `vs="-d6"`) is the
            # flag's value, refused in its own terms, not taken for another flag.
            args.append(f"{flag}={v}")
    return args


def roll(expr: str, **opts: Any) -> Result:
    """``rollsim roll EXPR``: a dice expression's distribution, exact beside Monte Carlo.
    Every option of the command is a keyword (``exact_only=True``, ``trials=100_000``,
    ``seed=7``, ``vs="2d6 + 4"``, ...), its default the command line's (1,000,000
    trials, seed 2026)."""
    expr = str(expr)
    args = ["-q", "roll", expr] + _flags("roll", opts)
    lean = _lean_roll(opts)
    if lean is None:
        return Result(args)
    return Result(args, _roll_held(expr, **lean))


def _u64(v: Any, lo: int = 0, hi: int = 2**64 - 1) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and lo <= v <= hi


# The lean path's keywords, each with the values it takes as they are; anything else
# (`trials="1e6"`, a negative seed) goes through the command line's parser, which says
# what is wrong in its words.
_LEAN = {
    "vs": lambda v: isinstance(v, str),
    "trials": lambda v: _u64(v, 1),
    "seed": _u64,
    "threads": lambda v: _u64(v, 1, 1024),
    "exact_only": lambda v: isinstance(v, bool),
    "no_trial_cap": lambda v: isinstance(v, bool),
}


def _lean_roll(opts: Mapping[str, Any]) -> Optional[dict[str, Any]]:
    """The options as the lean path takes them, or None where only the command line's
    parser can read them."""
    lean = {}
    for key, value in opts.items():
        if value is None:
            continue
        if key not in _LEAN or not _LEAN[key](value):
            return None
        lean[key] = value
    return lean


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

    def _balance(self, command: str, scenario: str, extra: Iterable[str], **opts: Any) -> Tables:
        args = [command, self.path, "-s", scenario] + self.sets + list(extra)
        args = [str(a) for a in args + _flags(command, opts, ("scenario", "set", "vary"))]
        # In memory: the command line's own tables, typed as its CSVs are written.
        return Tables({name: _frame(table) for name, table in _tables_of(args)}, args)

    def _one(self, command: str, scenario: str, extra: Iterable[str], **opts: Any) -> Frame:
        tables = self._balance(command, scenario, extra, **opts)
        return Frame._of(next(iter(tables.values())), tables._args)

    def compare(self, scenario: str, **opts: Any) -> Tables:
        """``rollsim compare``: the matchup matrices, by CSV name; ``plot()`` is the
        heatmap the command line draws."""
        return self._balance("compare", scenario, [], **opts)

    def sweep(
        self,
        scenario: str,
        key: str | Mapping[str, str],
        values: Optional[str] = None,
        **opts: Any,
    ) -> Frame:
        """``rollsim sweep CONFIG -s NAME --vary KEY=VALUES``: one row per point. ``key``
        and ``values`` (``"attacker.strength", "2..6"``), or for a grid a dict of two
        keys to their values (``{"attacker.strength": "2..6", "distance": "1..5"}``):
        one row per pair. ``plot()`` is the line chart or heatmap the command line
        draws."""
        vary = dict(key) if isinstance(key, Mapping) else {key: values}
        if not 1 <= len(vary) <= 2 or any(v is None for v in vary.values()):
            raise TypeError("sweep() takes a key and its values, or a dict of one or two keys to their values")
        extra: list[str] = []
        for k, v in vary.items():
            extra += ["--vary", f"{k}={v}"]
        return self._one("sweep", scenario, extra, **opts)

    def sensitivity(self, scenario: str, **opts: Any) -> Frame:
        """``rollsim sensitivity``: what +1 die and one better stat step are worth;
        ``plot()`` is the command line's chart."""
        return self._one("sensitivity", scenario, [], **opts)

    def equalize(self, scenario: str, **opts: Any) -> pl.DataFrame:
        """``rollsim equalize``: the smallest change that brings the odds closest to even."""
        return next(iter(self._balance("equalize", scenario, [], **opts).values()))

    def roster(self, scenario: str, **opts: Any) -> Tables:
        """``rollsim roster``: ratings, the Nash mix and the matrix, by CSV name;
        ``plot("ratings")``, ``plot("nash")``, ``plot("costs")`` ... the command line's
        charts."""
        return self._balance("roster", scenario, [], **opts)

    def __repr__(self) -> str:
        return f"Config({self.path!r}, {len(self.scenarios)} scenarios)"


def overlay(*entries: str | os.PathLike, **opts: Any) -> dict[str, pl.DataFrame]:
    """``rollsim overlay ENTRY ENTRY ...``: one metric of several scenarios side by side,
    each entry ``"CONFIG:SCENARIO"`` or ``"CONFIG:SCENARIO:KEY=VALUE;..."`` (a variant);
    every option of ``overlay`` is a keyword (``metric``, ``trials``, ``seed``, ...). The
    tables it would write as CSVs, by name."""
    if len(entries) < 2:
        raise TypeError("overlay() sets at least two entries side by side, e.g. overlay(\"a.toml:duel\", \"b.toml:duel\")")
    args = ["overlay", *(str(e) for e in entries)] + _flags("overlay", opts)
    return {name: _frame(table) for name, table in _tables_of(args)}


def load(path: str | os.PathLike, set: Optional[Mapping[str, Any]] = None) -> Config:
    """A config file (``set``: changes as ``--set`` takes them, e.g.
    ``{"units.orc.strength": 2}``)."""
    return Config(path, set)


# What the import rolls: the language's common reads (a pool variable read two ways, a
# rolled count, keeps, counts, rerolls, explosions, faces named, a branch, a contest, a
# sequence, a throw scored by its faces), so that the code a first roll runs (the parser, the compile, the exact
# engine, the tables, polars' reading of them) has been run and is warm.
_FIRST = "let p = 4d6 in p highest + p sum - (d4)d6 count >= 3 + max(d8, 2d10 keep highest 1)"
_WARM = (
    _FIRST,
    "d20 + 5",
    "4d6 drop lowest",
    "(2d6 reroll <= 1) + 2",
    "d6 explode - d6 explode",
    "let p = 3d{hit*2, miss} in p count hit",
    "let r = d20 in if r >= 11 then 2d6 + 3 else 0",
    "8d10 count >= 7",
    "pairs(3d6, 2d6)",
    "repeat t = 0 until t >= 6 do t = t + d6 then rounds",
    # A chain whose fractions pass what floats recover: the integer law's code.
    "let h = 10d6 count >= 3 in (h)d6 count >= 4",
    # A throw scored by its faces (sets, runs, the face most dice show): the pass that
    # reads one pool many ways at once, and a score in steps of 50.
    "let p = 5d6 in if p maxset >= 3 then 500 * p mode else 100 * p sets 2 + 50 * p straight",
    # Two pools of named faces read face by face against each other (an attack's
    # criticals and hits against a defence's): the pass over both pools' outcomes.
    "let a = 3d{hit*2, crit, miss} in let b = 2d{block, crit, miss*2} in if a count crit != b count crit then (if a count crit > b count crit then 2 else -2) else a count hit - b count block",
    # A die rolled again on two faces and read on a chart of ranges: the chains'
    # rows, a long `if` over every total, fractions of deep denominators.
    "let t = d10 explode on 1, 10 in if t <= 3 then 0 else if t <= 12 then t / 3 else 4 + (t - 12) / 5",
    # Cards drawn in order from one deck, and a count rolled before a `repeat`.
    "let a, b = deck{1, 2, 3, 4, 5} draw 2 in a * 10 + b",
    "let h = 2d6 count >= 5 in repeat n = 3 - h until n <= 0 do n = n - (d6 >= 4) then rounds",
)
# Rounds of it: one round leaves a first roll twice as slow as its next (what a call
# runs is read once, not yet warm: caches, branch predictors, the interpreter's
# specialised code); three bring it to the next's (0.11 ms for a small roll with its
# DataFrame, where one round left 0.16 to 0.23).
_WARM_ROUNDS = 3
# The allocator's memory written before them, in MiB: enough for the rolls after the
# import to find their pages cleared (Farkle's scored throw took 0.76 ms with 8 MiB, 0.54
# with 16); given back to the system about a second after (`touch_heap` says why).
_TOUCHED_MIB = 16


def _start() -> None:
    """Start at import what the first call would otherwise start: the code a roll runs,
    `roll`'s keywords (read from the command line's parser, 0.35 ms) and polars' reading
    of an Arrow stream (its modules load on first use), and the allocator's first pages
    (`touch_heap`). About 10 ms, beside the 150 polars' own import takes; a notebook's
    first roll is then as quick as its next."""
    _touch_heap(_TOUCHED_MIB)
    for _ in range(_WARM_ROUNDS):
        for expr in _WARM:
            roll(expr, exact_only=True).distribution


_start()

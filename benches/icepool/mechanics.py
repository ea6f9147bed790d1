"""Dice mechanics of published tabletop games, each written twice: in rollsim's dice
language (docs/dice-language.md, as a new user writes it) and in icepool's own terms
(icepool 2.1), timed in fresh processes and checked equal value by value.

Every row gives one integer per roll. For each row, three fresh Python processes per
tool, the median taken, the import excluded, every process on one core (`pinning.one_core`):

- rollsim: `import rollsim`, then timed: `rollsim.roll(EXPR, exact_only=True).distribution`
  (a polars DataFrame; the nonzero `exact` column is the distribution);
- icepool: `import icepool`, then timed: building the Die and its `.mean()` (which forces
  the evaluation, as icepool_time.py does).

Every value's probability must agree within 1e-12 (absolute) both ways, over the same
support (probabilities below 1e-300 ignored). A row that differs is printed LOUDLY
under the table (and the script exits non-zero): a bug in rollsim or a mismatch between
the two writings. `NOT_YET` lists the mechanics the language cannot say yet, with why;
those written in both tools all the same are in `PENDING` (`@pending`, not in the
table: `--check NAME` runs one).

The rows live in rows_published.py (categories 1 to 6) and rows_classes.py (7 to 14);
rowbook.py holds the categories and the `row` and `pending` decorators.

Each row has one category. The first six sort the published mechanics by what they
do; the last eight each hold at least 8 rows that lean on one part of the language:

- `shrink`: a dice count that shrinks inside a `repeat` (armies, fleets and pools worn
  down round by round: `(a)d6 count >= 5` with `a` a state variable);
- `count from arithmetic`: a dice count worked out by arithmetic on earlier rolls
  (`(hits - saved)d6`, `(2 * r count >= 8 + 2 * r count 20)d6`);
- `let as number`: a rolled pool bound by `let` and read as a number
  (`let dmg = 8d6 in if ... then dmg / 2 else dmg`);
- `read several ways`: one pool read several ways at once (counts, `sum`, `maxset`,
  `sets`, `straight`, `mode`, `highest`, `keep` of the same dice);
- `several pools`: up to four pools compared face by face (`let a = 5d6 in let b = 4d6
  in ...`: the most 6s, ties to the most 5s, ...), written as the rulebook compares
  them, no number packing;
- `deck in order`: cards dealt in order from one deck, each read apart: `let a, b, c =
  deck{...} draw 3 in ...` binds the first, second and third card (a package without
  that syntax refuses these rows: `--check` prints REFUSED); icepool deals in order
  with `Deck.sequence(k)` or a card at a time from what is left;
- `let before repeat`: a `let` whose value starts a `repeat` (`let hp = 4d8 + 1 in
  repeat h = hp until ...`);
- `explode on two faces`: an explosion on several faces or a condition
  (`d20 explode on 10, 20`, `d% explode >= 96`, `again >= 8`, `again <= 2`).

A `repeat` stops after 100 rounds unless it says `limit N`; where a round can leave the
state as it was (both sides miss), the icepool writing plays the same 100 rounds
(`repeat=100`), so that the two agree on the remainder still unfinished too.

    /work/main/target/pyenv/bin/python benches/icepool/mechanics.py            # every row
    .../python benches/icepool/mechanics.py farkle risk-battle                 # some rows
    .../python benches/icepool/mechanics.py --check                            # values only, one process, no timing
    .../python benches/icepool/mechanics.py --list                             # the row names
    .../python benches/icepool/mechanics.py --write                            # and replace the table in the docs

`--write` replaces the text between `<!-- mechanics:begin -->` and
`<!-- mechanics:end -->` in docs/dice-language.md (the markers must be there).
(`--icepool NAME` is the child process the script starts to time icepool.)
"""
import json
import os
import statistics
import subprocess
import sys
import time
from collections import Counter

from rowbook import *  # noqa: F401,F403 -- the rows, categories and lists
from pinning import one_core  # noqa: E402
import rows_published  # noqa: F401,E402 -- fills ROWS
import rows_classes  # noqa: F401,E402 -- fills ROWS

HERE = os.path.dirname(os.path.abspath(__file__))
DOC = os.path.join(HERE, "..", "..", "docs", "dice-language.md")
BEGIN, END = "<!-- mechanics:begin -->", "<!-- mechanics:end -->"


# ---------------------------------------------------------------------------
# Measuring

OURS = """
import json, sys, time
import rollsim
start = time.perf_counter()
r = rollsim.roll(sys.argv[1], exact_only=True)
d = r.distribution
took = time.perf_counter() - start
metrics = d["metric"].unique().to_list()
print(json.dumps({"took": took, "metrics": metrics,
                  "dist": [[v, p] for v, p in zip(d["value"].to_list(), d["exact"].to_list())
                           if p]}))
"""


def distribution(die):
    """{outcome: probability} of an icepool Die, as floats (quantity / denominator)."""
    total = die.denominator()
    return {int(o): q / total for o, q in die.items() if q}


def icepool_child(name):
    """Run in a fresh process: time one row in icepool, print JSON."""
    build = next(r for r in ROWS + PENDING if r.name == name).icepool
    start = time.perf_counter()
    die = build()
    mean = float(die.mean())
    took = time.perf_counter() - start
    print(json.dumps({"took": took, "mean": mean,
                      "dist": [[o, p] for o, p in distribution(die).items()]}))


def run(args):
    out = subprocess.run([sys.executable, *args], capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(out.stderr.strip().splitlines()[-1] if out.stderr.strip() else
                           f"exit {out.returncode}")
    return json.loads(out.stdout)


def timed(args):
    runs = [run(args) for _ in range(3)]
    return statistics.median(r["took"] for r in runs), runs[0]


def compare(got, want):
    """The largest absolute difference, and what differs in the support (ignoring
    probabilities below 1e-300)."""
    got = {k: p for k, p in got.items() if p >= 1e-300}
    want = {k: p for k, p in want.items() if p >= 1e-300}
    worst = max(abs(got.get(k, 0.0) - want.get(k, 0.0)) for k in set(got) | set(want))
    only_ours, only_theirs = sorted(set(got) - set(want)), sorted(set(want) - set(got))
    return worst, only_ours, only_theirs


def verdict(row, got, want):
    worst, only_ours, only_theirs = compare(got, want)
    problems = []
    if only_ours or only_theirs:
        problems.append(f"support differs: rollsim only {only_ours[:8]}, icepool only {only_theirs[:8]}")
    if worst > 1e-12:
        k = max(set(got) | set(want), key=lambda k: abs(got.get(k, 0.0) - want.get(k, 0.0)))
        problems.append(f"largest difference {worst:.3e} at value {k}: rollsim "
                        f"{got.get(k, 0.0)!r}, icepool {want.get(k, 0.0)!r}")
        mean = lambda d: sum(k * p for k, p in d.items())
        problems.append(f"means: rollsim {mean(got)!r}, icepool {mean(want)!r}")
    return worst, problems


def ms(t):
    return (f"{t * 1000:.2f} ms" if t < 0.01 else f"{t * 1000:.1f} ms" if t < 0.1
            else f"{t * 1000:.0f} ms")


HEADER = ("| game | category | mechanic | rollsim expression | rollsim | icepool 2.1 | ratio "
          "| largest difference | pass |\n|---|---|---|---|---:|---:|---:|---:|---|")


def measure(row):
    """One table line and the row's problems (an empty list when the values agree)."""
    cells = [row.game, row.category, row.words, f"`{row.expr}`"]
    try:
        ours_t, ours = timed(["-c", OURS, row.expr])
    except RuntimeError as e:
        return "| " + " | ".join(cells + ["**REFUSED**", "", "", "", "no"]) + " |", [f"rollsim refused: {e}"]
    theirs_t, theirs = timed([os.path.abspath(__file__), "--icepool", row.name])
    problems = []
    if len(ours["metrics"]) != 1:
        problems.append(f"rollsim gave {len(ours['metrics'])} metrics, not one value")
    worst, more = verdict(row, dict(map(tuple, ours["dist"])), dict(map(tuple, theirs["dist"])))
    problems += more
    ratio = theirs_t / ours_t
    shown_ratio = f"{ratio:.0f}x" if ratio >= 10 else f"{ratio:.1f}x"
    ok = "yes" if (ratio >= 10 or ours_t < 0.0002) else "no"
    diff = f"{worst:.0e}" if not problems else f"**{worst:.1e} DIFFERS**"
    return "| " + " | ".join(cells + [ms(ours_t), ms(theirs_t), shown_ratio, diff, ok]) + " |", problems


def check(rows):
    """Values only, in this process: rollsim against icepool, no timing."""
    import rollsim
    bad = 0
    for row in rows:
        try:
            d = rollsim.roll(row.expr, exact_only=True).distribution
        except Exception as e:  # noqa: BLE001 -- report any refusal
            print(f"REFUSED {row.name}: {e}")
            bad += 1
            continue
        got = {v: p for v, p in zip(d["value"].to_list(), d["exact"].to_list()) if p}
        worst, problems = verdict(row, got, distribution(row.icepool()))
        print(f"{'DIFFERS' if problems else 'ok':8} {row.name:22} {worst:.1e}")
        for p in problems:
            print(f"         {p}")
        bad += bool(problems)
    return bad


def write_doc(table):
    with open(DOC) as f:
        text = f.read()
    if BEGIN not in text or END not in text:
        sys.exit(f"{DOC}: no `{BEGIN}` ... `{END}` markers to write between")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    with open(DOC, "w") as f:
        f.write(f"{head}{BEGIN}\n{table}\n{END}{tail}")


def main():
    argv = sys.argv[1:]
    if argv[:1] == ["--icepool"]:
        return icepool_child(argv[1])
    if "--list" in argv:
        for r in ROWS:
            print(f"{r.name:24} {r.category:9} {r.game}")
        for r in PENDING:
            print(f"{r.name:24} {r.category:9} {r.game} (pending: not in the language yet)")
        return
    names = [a for a in argv if not a.startswith("--")]
    unknown = set(names) - {r.name for r in ROWS + PENDING}
    if unknown:
        sys.exit(f"no such row: {', '.join(sorted(unknown))} (see --list)")
    rows = [r for r in ROWS + PENDING if r.name in names] if names else ROWS
    if names and "--write" in argv:
        sys.exit("--write replaces the whole table: run it without row names")
    if "--check" in argv:
        sys.exit(1 if check(rows) else 0)

    cpu = one_core()
    print(f"timed on CPU {cpu}" if cpu is not None else "timed on any CPU", file=sys.stderr)
    lines, loud = [HEADER], []
    print(HEADER, flush=True)
    for r in rows:
        line, problems = measure(r)
        print(line, flush=True)
        lines.append(line)
        if problems:
            loud.append((r, problems))
    if not names:
        games = {r.game for r in ROWS}
        counts = Counter(r.category for r in ROWS)
        print(f"\n{len(ROWS)} rows, {len(games)} games; "
              + ", ".join(f"{c} {counts[c]}" for c in CATEGORIES))
    if NOT_YET:
        print("\nNot in the language yet:")
        for name, game, expr, why in NOT_YET:
            print(f"- {name} ({game}): `{expr}`: {why}")
    for r, problems in loud:
        print(f"\n!!!!!!!! {r.name} ({r.game}) DIFFERS OR FAILS !!!!!!!!\n  rollsim: {r.expr}")
        for p in problems:
            print(f"  {p}")
    if "--write" in argv:
        write_doc("\n".join(lines))
    if loud:
        sys.exit(1)


if __name__ == "__main__":
    main()

"""The rows of benches/icepool/mechanics.py: a row is a mechanic of a published game written
in rollsim's dice language and in icepool's own terms (its module docstring says how they
are measured). The categories, the `row` and `pending` decorators and the lists they fill
live here; the rows themselves in rows_published.py and rows_classes.py."""
from dataclasses import dataclass
from typing import Callable

import icepool



SEQ = "sequence"          # sequences and stopping rules
CHAIN = "chain"           # dice counts from earlier rolls
VERSUS = "pools"          # several pools read together
FACES = "faces"           # scoring a throw by its faces
EXPLODE = "explode"       # exploding and rerolled dice read through formulas
BIG = "big pool"          # hundreds of dice
SHRINK = "shrink"                          # a dice count that shrinks inside a `repeat`
ARITH = "count from arithmetic"            # a dice count worked out from earlier rolls
LET_NUMBER = "let as number"               # a rolled pool bound by `let`, read as a number
READS = "read several ways"                # one pool read several ways at once
POOLS = "several pools"                    # pools compared face by face
DECK = "deck in order"                     # cards dealt in order, each read apart
LET_REPEAT = "let before repeat"           # a `let` whose value starts a `repeat`
MULTI = "explode on two faces"             # an explosion on several faces or a condition
CATEGORIES = [SEQ, CHAIN, VERSUS, FACES, EXPLODE, BIG,
              SHRINK, ARITH, LET_NUMBER, READS, POOLS, DECK, LET_REPEAT, MULTI]


@dataclass
class Row:
    name: str
    game: str
    category: str
    words: str
    expr: str
    icepool: Callable[[], icepool.Die]


ROWS: list[Row] = []


def row(name, game, category, words, expr):
    """Adds a row whose icepool writing is the decorated function."""
    def add(build):
        ROWS.append(Row(name, game, category, words, " ".join(expr.split()), build))
        return build
    return add


# Mechanics the language cannot say yet (exactly, as the game has it): (name, game,
# the expression a new user writes, why it is not a row).
NOT_YET: list[tuple[str, str, str, str]] = []

# Rows written in both tools whose rollsim side the package refuses today (or gives only
# by Monte Carlo), kept out of ROWS so that the check stays green: each is also in
# NOT_YET with the refusal. `--check NAME` runs one by name.
PENDING: list[Row] = []


def pending(name, game, category, words, expr, why):
    """Like `row`, for a mechanic the package cannot answer exactly yet (`why`)."""
    def add(build):
        PENDING.append(Row(name, game, category, words, " ".join(expr.split()), build))
        NOT_YET.append((name, game, " ".join(expr.split()), why))
        return build
    return add

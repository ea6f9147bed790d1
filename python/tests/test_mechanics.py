"""The mechanics of published games in docs/dice-language.md (written by
benches/icepool/mechanics.py): every row's exact distribution from the package equals
icepool's, value by value within 1e-12, and the docs' table has every row of the bench.
(Its timings are the bench's to measure, not a test's.)"""
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "benches", "icepool"))

icepool = pytest.importorskip("icepool")
mechanics = pytest.importorskip("mechanics")

# The classes each of which leans on one part of the language (the module's docstring).
CLASSES = [mechanics.SHRINK, mechanics.ARITH, mechanics.LET_NUMBER, mechanics.READS,
           mechanics.POOLS, mechanics.DECK, mechanics.LET_REPEAT, mechanics.MULTI]


def test_every_mechanic_equals_icepools_value_by_value():
    assert len(mechanics.ROWS) >= 60
    games = {r.game for r in mechanics.ROWS}
    assert len(games) >= 40, games
    for category in mechanics.CATEGORIES:
        least = 8 if category in CLASSES else 5
        assert sum(r.category == category for r in mechanics.ROWS) >= least, category
    assert mechanics.check(mechanics.ROWS) == 0


def test_the_docs_table_has_every_row():
    with open(os.path.join(ROOT, "docs", "dice-language.md")) as f:
        doc = f.read()
    table = doc.split(mechanics.BEGIN, 1)[1].split(mechanics.END, 1)[0]
    for r in mechanics.ROWS:
        assert f"`{r.expr}`" in table, r.name

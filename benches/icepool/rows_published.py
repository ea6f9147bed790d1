"""Published mechanics sorted by what they do (categories 1 to 6 of mechanics.py)."""
from collections import Counter
from functools import cache
from itertools import combinations

import icepool
from icepool import Again, Vector, d3, d6, d8, d10, d12, d20

from rowbook import *  # noqa: F401,F403 -- the categories and the decorators


# ---------------------------------------------------------------------------
# 1. Sequences and stopping rules


@row("death-saves", "Dungeons & Dragons 5e", SEQ,
     "death saving throws: 3 successes or 3 failures, a 1 two failures, a 20 back up",
     """repeat s = 0, f = 0, up = 0 until s >= 3 or f >= 3 or up
        do let r = d20 in s = s + (r >= 10 and r < 20), f = f + (r < 10) + (r == 1), up = r == 20
        then if up then 2 else if s >= 3 then 1 else 0""")
def death_saves():
    def save(s, f, up, r):
        if s >= 3 or f >= 3 or up:
            return s, f, up
        return s + (10 <= r < 20), f + (r < 10) + (r == 1), int(r == 20)

    end = icepool.map(save, (0, 0, 0), d20, repeat="inf")
    return end.map(lambda s, f, up: 2 if up else 1 if s >= 3 else 0)


@row("usage-die", "The Black Hack", SEQ,
     "uses of a d8 usage die: a 1-2 steps it down (d8, d6, d4, gone)",
     """repeat s = 8 until s == 0
        do s = if d(s) <= 2 then (if s > 4 then s - 2 else 0) else s
        limit 200 then rounds""")
def usage_die():
    def use(s):
        if s == 0:
            return 0
        return icepool.d(s).map(lambda r: (s - 2 if s > 4 else 0) if r <= 2 else s)

    return icepool.map_and_time(use, 8, time_limit=200).map(lambda s, rounds: rounds)


@row("pig", "Pig", SEQ,
     "a turn holding at 20: a 1 busts the turn to 0",
     """repeat t = 0, bust = 0 until bust or t >= 20
        do let r = d6 in t = t + r, bust = r == 1
        then if bust then 0 else t""")
def pig():
    def turn(t, bust, r):
        if bust or t >= 20:
            return t, bust
        return t + r, int(r == 1)

    return icepool.map(turn, (0, 0), d6, repeat="inf").map(lambda t, bust: 0 if bust else t)


@row("monopoly-turn", "Monopoly", SEQ,
     "a turn's move: doubles roll again, a third double goes to jail (0)",
     """repeat total = 0, n = 0, dbl = 1 until dbl == 0 or n == 3
        do let a = d6 in let b = d6 in total = total + a + b, n = n + 1, dbl = a == b
        then if dbl then 0 else total""")
def monopoly_turn():
    def throw(total, n, dbl, a, b):
        if dbl == 0 or n == 3:
            return total, n, dbl
        return total + a + b, n + 1, int(a == b)

    end = icepool.map(throw, (0, 0, 1), d6, d6, repeat=3)
    return end.map(lambda total, n, dbl: 0 if dbl else total)


@row("risk-battle", "Risk", SEQ,
     "10 armies attack 5 to the end: armies left (negative: the defender's)",
     """repeat a = 10, d = 5 until a <= 1 or d <= 0
        do let w = if a >= 4 then (if d >= 2 then pairs(3d6, 2d6) else pairs(3d6, d6))
                   else if a == 3 then (if d >= 2 then pairs(2d6, 2d6) else pairs(2d6, d6))
                   else (if d >= 2 then pairs(d6, 2d6) else pairs(d6, d6))
           in a = a - (min(a - 1, 3, d, 2) - w), d = d - w
        then if d <= 0 then a else 0 - d""")
def risk_battle():
    def battle(a, d):
        if a <= 1 or d <= 0:
            return a, d
        attack, defend = min(a - 1, 3), min(d, 2)
        m = min(attack, defend)
        # The highest m dice of each side, paired. (icepool 2.1.3's sort_pair pairs one
        # die against two with the lower of the two: P(win) 125/216 for 55/216.)
        won = d6.pool(attack).highest(m).sort_pair(">", d6.pool(defend).highest(m)).size()
        return won.map(lambda w: (a - (m - w), d - w))

    end = icepool.map(battle, (10, 5), repeat="inf")
    return end.map(lambda a, d: a if d <= 0 else -d)


@row("chaos-bolt", "Dungeons & Dragons 5e", SEQ,
     "Chaos Bolt: 2d8 + d6, leaping on while the d8s match (at most 15 leaps)",
     """repeat total = 0, go = 1 until go == 0
        do let a = d8 in let b = d8 in total = total + a + b + d6, go = a == b
        limit 15 then total""")
def chaos_bolt():
    bolt = icepool.map(lambda a, b, c: (a + b + c, int(a == b)), d8, d8, d6)

    def leap(state, hit):
        (total, go), (damage, again) = state, hit
        return (total + damage, again) if go else (total, go)

    return icepool.map(leap, (0, 1), bolt, star=False, repeat=15).map(lambda total, go: total)


@row("blades-project", "Blades in the Dark", SEQ,
     "rolls of 2d6 to fill an 8-segment project clock (1, 2, 3 or 5 ticks)",
     """repeat t = 0 until t >= 8
        do t = t + (let p = 2d6 in if p count 6 >= 2 then 5 else if p highest == 6 then 3
                    else if p highest >= 4 then 2 else 1)
        then rounds""")
def blades_project():
    def ticks(roll):
        return 5 if roll.count(6) >= 2 else 3 if roll[-1] == 6 else 2 if roll[-1] >= 4 else 1

    tick = icepool.map(ticks, d6.pool(2))

    def work(t, rolls, x):
        return (t, rolls) if t >= 8 else (t + x, rolls + 1)

    return icepool.map(work, (0, 0), tick, repeat=8).map(lambda t, rolls: rolls)


# ---------------------------------------------------------------------------
# 2. Chains whose dice counts come from earlier rolls


@row("hit-wound-save", "Warhammer 40,000", CHAIN,
     "20 shots: hit 3+, wound 4+, save 5+: wounds through",
     """let hits = 20d6 count >= 3 in let wounds = (hits)d6 count >= 4 in
        let saves = (wounds)d6 count >= 5 in wounds - saves""")
def hit_wound_save():
    return ((20 @ (d6 >= 3)) @ (d6 >= 4)) @ (d6 <= 4)


@row("monster-attacks", "Warhammer Age of Sigmar", CHAIN,
     "2d6 attacks, hit 3+, wound 3+, save 5+, d3 damage each",
     """let attacks = 2d6 in let hits = (attacks)d6 count >= 3 in
        let wounds = (hits)d6 count >= 3 in let unsaved = (wounds)d6 count <= 4 in (unsaved)d3""")
def monster_attacks():
    return ((((2 @ d6) @ (d6 >= 3)) @ (d6 >= 3)) @ (d6 <= 4)) @ d3


@row("extra-successes", "Exalted 2e", CHAIN,
     "8d10 (7+, 10s twice) against defence 3; the extra successes add to 4 damage dice",
     """let a = 8d10 in let s = a count >= 7 + a count 10 in
        if s > 3 then (s + 1)d10 count >= 7 else 0""")
def extra_successes():
    successes = 8 @ d10.map(lambda x: (x >= 7) + (x == 10))
    return successes.map(lambda s: (s + 1) @ (d10 >= 7) if s > 3 else 0)


@row("owod-damage", "Vampire: The Masquerade (oWoD)", CHAIN,
     "6d10 at difficulty 6, 1s cancel; net successes add to 3 damage dice",
     """let p = 6d10 in let net = p count >= 6 - p count 1 in
        if net >= 1 then (net + 2)d10 count >= 6 else 0""")
def owod_damage():
    net = 6 @ d10.map(lambda x: (x >= 6) - (x == 1))
    return net.map(lambda n: (n + 2) @ (d10 >= 6) if n >= 1 else 0)


@row("myz-push", "Mutant: Year Zero", CHAIN,
     "5 base dice, 6s succeed; with none, push: reroll all but the 1s",
     """let p = 5d6 in if p count 6 >= 1 then p count 6 else (5 - p count 1)d6 count 6""")
def myz_push():
    def push(roll):
        if 6 in roll:
            return roll.count(6)
        return (5 - roll.count(1)) @ (d6 >= 6)

    return icepool.map(push, d6.pool(5))


@row("sneak-attack", "Dungeons & Dragons 5e", CHAIN,
     "rogue, +7 against AC 15: 4d6 + 4, a 20 doubles the dice",
     """let r = d20 in if r == 20 then 8d6 + 4 else if r + 7 >= 15 then 4d6 + 4 else 0""")
def sneak_attack():
    return d20.map(lambda r: 8 @ d6 + 4 if r == 20 else 4 @ d6 + 4 if r + 7 >= 15 else 0)


@row("pf2-strike", "Pathfinder 2e", CHAIN,
     "strike +10 against AC 20: four degrees, nat 20/1 step; a critical doubles 2d8 + 4",
     """let r = d20 in let t = r + 10 in
        let deg = (t >= 30) + (t >= 20) + (t > 10) + (r == 20) - (r == 1) in
        if deg >= 3 then 2 * (2d8 + 4) else if deg == 2 then 2d8 + 4 else 0""")
def pf2_strike():
    def strike(r):
        t = r + 10
        degree = (t >= 30) + (t >= 20) + (t > 10) + (r == 20) - (r == 1)
        damage = 2 @ d8 + 4
        return 2 * damage if degree >= 3 else damage if degree == 2 else 0

    return d20.map(strike)


# ---------------------------------------------------------------------------
# 3. Several pools read together


@row("risk-roll", "Risk", VERSUS,
     "3 attacking dice against 2: the defender's armies lost",
     "pairs(3d6, 2d6)")
def risk_roll():
    return d6.pool(3).sort_pair(">", d6.pool(2)).size()


@row("face-to-face", "Infinity", VERSUS,
     "burst 3 at 13 against 1 die at 12: the active side's hits less the reactive's",
     """let a = 3d20 in let r = 1d20 in
        beats(a only <= 13, r only <= 12) - beats(r only <= 12, a only <= 13)""")
def face_to_face():
    @icepool.multiset_function
    def f2f(a, r):
        a_ok, r_ok = a.keep_outcomes(lambda x: x <= 13), r.keep_outcomes(lambda x: x <= 12)
        return a_ok.versus_all(">", r_ok).size(), r_ok.versus_all(">", a_ok).size()

    return f2f(d20.pool(3), d20.pool(1)).map(lambda mine, theirs: mine - theirs)


@row("sorcerer", "Sorcerer", VERSUS,
     "4d10 against 3d10: the winner's dice above the loser's best (signed)",
     "let a = 4d10 in let b = 3d10 in beats(a, b) - beats(b, a)")
def sorcerer():
    @icepool.multiset_function
    def victories(a, b):
        return a.versus_all(">", b).size(), b.versus_all(">", a).size()

    return victories(d10.pool(4), d10.pool(3)).map(lambda mine, theirs: mine - theirs)


@row("heroquest-attack", "HeroQuest", VERSUS,
     "3 combat dice of skulls against a monster's 2 black shields: bodies lost",
     """let a = 3d{skull*3, shield*2, black} in let b = 2d{skull*3, shield*2, black} in
        max(0, a count skull - b count black)""")
def heroquest_attack():
    skull = icepool.Die([1, 1, 1, 0, 0, 0])
    black_shield = icepool.Die([0, 0, 0, 0, 0, 1])
    return (3 @ skull - 2 @ black_shield).map(lambda x: max(0, x))


@row("xwing-attack", "Star Wars: X-Wing", VERSUS,
     "3 red dice against 2 green: hits and crits less evades",
     """let a = 3d{hit*3, crit, focus*2, blank*2} in let d = 2d{evade*3, focus*2, blank*3} in
        max(0, a count hit + a count crit - d count evade)""")
def xwing_attack():
    red = icepool.Die(["hit"] * 3 + ["crit", "focus", "focus", "blank", "blank"])
    green = icepool.Die(["evade"] * 3 + ["focus"] * 2 + ["blank"] * 3)
    damage = 3 @ red.map(lambda f: int(f in ("hit", "crit")))
    evades = 2 @ green.map(lambda f: int(f == "evade"))
    return (damage - evades).map(lambda x: max(0, x))


@row("hunger-dice", "Vampire: The Masquerade 5e", VERSUS,
     "4 dice and 2 hunger dice against 3: bestial -1, fail, win, critical, messy critical",
     """let n = 4d10 in let h = 2d10 in let tens = n count 10 + h count 10 in
        let s = n count >= 6 + h count >= 6 + 2 * (tens / 2) in
        if s < 3 then 0 - (h count 1 >= 1) else if tens >= 2 then (if h count 10 >= 1 then 3 else 2) else 1""")
def hunger_dice():
    # (successes, tens, hunger tens, hunger ones) per die, summed over the dice.
    normal = d10.map(lambda x: Vector((int(x >= 6), int(x == 10), 0, 0)))
    hunger = d10.map(lambda x: Vector((int(x >= 6), int(x == 10), int(x == 10), int(x == 1))))

    def result(v):
        successes, tens, hunger_tens, hunger_ones = v
        s = successes + 2 * (tens // 2)
        if s < 3:
            return -1 if hunger_ones else 0
        if tens >= 2:
            return 3 if hunger_tens else 2
        return 1

    return (4 @ normal + 2 @ hunger).map(result)


@row("genesys-check", "Genesys", VERSUS,
     "2 ability and 1 proficiency die against 2 difficulty dice: net successes",
     """let p = [2d{blank, success, success, success+success, advantage, advantage,
                    success+advantage, advantage+advantage},
                 1d{blank, success, success, success+success, success+success, advantage,
                    success+advantage, success+advantage, success+advantage,
                    advantage+advantage, advantage+advantage, triumph+success},
                 2d{blank, failure, failure+failure, threat, threat, threat, threat+threat,
                    failure+threat}]
        in p count success - p count failure""")
def genesys_check():
    ability = icepool.Die([0, 1, 1, 2, 0, 0, 1, 0])
    proficiency = icepool.Die([0, 1, 1, 2, 2, 0, 1, 1, 1, 0, 0, 1])
    difficulty = icepool.Die([0, 1, 2, 0, 0, 0, 0, 1])
    return 2 @ ability + proficiency - 2 @ difficulty


@row("shadowrun-attack", "Shadowrun 5e", VERSUS,
     "12 dice against 8 (hits 5+); net hits add to DV 8, soaked by 10 dice",
     """let net = 12d6 count >= 5 - 8d6 count >= 5 in
        if net > 0 then max(0, 8 + net - 10d6 count >= 5) else 0""")
def shadowrun_attack():
    hit = d6 >= 5
    net = 12 @ hit - 8 @ hit
    soak = 10 @ hit
    return net.map(lambda n: (8 + n - soak).map(lambda x: max(0, x)) if n > 0 else 0)


@row("ironsworn-action", "Ironsworn", VERSUS,
     "d6 + 2 against two d10 challenge dice: miss, weak hit, strong hit",
     "let a = d6 + 2 in (a > d10) + (a > d10)")
def ironsworn_action():
    return icepool.map(lambda a, c1, c2: (a > c1) + (a > c2), d6 + 2, d10, d10)


# ---------------------------------------------------------------------------
# 4. Scoring a throw by its faces


@row("farkle", "Farkle", FACES,
     "score of a 6-dice throw: singles, sets, straight, pairs",
     """let p = 6d6 in let c1 = p count 1 in let c5 = p count 5 in let m = p maxset in
        if m == 6 then 3000 else if p sets 3 == 2 then 2500
        else if p straight == 6 or p sets 2 == 3 or (m == 4 and p sets 2 == 2) then 1500
        else (if m == 5 then 2000 else if m == 4 then 1000
              else 1000 * (c1 == 3) + 200 * (p count 2 == 3) + 300 * (p count 3 == 3)
                   + 400 * (p count 4 == 3) + 500 * (c5 == 3) + 600 * (p count 6 == 3))
             + 100 * c1 * (c1 < 3) + 50 * c5 * (c5 < 3)""")
def farkle():
    def score(roll):
        c = Counter(roll)
        m = max(c.values())
        pairs = sum(n >= 2 for n in c.values())
        if m == 6:
            return 3000
        if sum(n >= 3 for n in c.values()) == 2:
            return 2500
        if len(c) == 6 or pairs == 3 or (m == 4 and pairs == 2):
            return 1500
        if m == 5:
            sets = 2000
        elif m == 4:
            sets = 1000
        else:
            sets = sum((1000 if f == 1 else 100 * f) for f, n in c.items() if n == 3)
        return sets + 100 * c[1] * (c[1] < 3) + 50 * c[5] * (c[5] < 3)

    return icepool.map(score, d6.pool(6))


@row("yahtzee-best", "Yahtzee", FACES,
     "best lower-section score of one throw (chance, full house, straights, Yahtzee)",
     """let p = 5d6 in max(p sum, 25 * (p sets 3 == 1 and p sets 2 == 2), 30 * (p straight >= 4),
                         40 * (p straight == 5), 50 * (p maxset == 5))""")
def yahtzee_best():
    def score(roll):
        counts = sorted(Counter(roll).values())
        run = max_run(roll)
        return max(sum(roll), 25 * (counts == [2, 3]), 30 * (run >= 4), 40 * (run == 5),
                   50 * (counts == [5]))

    return icepool.map(score, d6.pool(5))


def max_run(roll):
    """The longest run of consecutive faces in a sorted roll."""
    faces = sorted(set(roll))
    best = run = 1
    for a, b in zip(faces, faces[1:]):
        run = run + 1 if b == a + 1 else 1
        best = max(best, run)
    return best


@row("king-of-tokyo", "King of Tokyo", FACES,
     "victory points of 6 dice: three of a number scores it, each more +1",
     """let p = 6d6 in let a = p count 1 in let b = p count 2 in let c = p count 3 in
        (a >= 3) * (a - 2) + (b >= 3) * (b - 1) + (c >= 3) * c""")
def king_of_tokyo():
    def points(roll):
        return sum(f + roll.count(f) - 3 for f in (1, 2, 3) if roll.count(f) >= 3)

    return icepool.map(points, d6.pool(6))


@row("dragon-age-stunt", "Dragon Age (AGE)", FACES,
     "3d6 with a dragon die: any double gives the dragon die in stunt points",
     """let p = 2d6 in let dragon = d6 in
        if p maxset >= 2 or p count == dragon >= 1 then dragon else 0""")
def dragon_age_stunt():
    return icepool.map(lambda a, b, dragon: dragon if len({a, b, dragon}) < 3 else 0, d6, d6, d6)


@row("reign-set", "Reign (One-Roll Engine)", FACES,
     "7d10: the widest set, then the tallest, as width x 100 + height (0: no set)",
     "let p = 7d10 in let w = p maxset in if w < 2 then 0 else 100 * w + p mode")
def reign_set():
    widest = d10.pool(7).largest_count_and_outcome()  # widest, then tallest
    return widest.map(lambda width, height: 0 if width < 2 else 100 * width + height)


@row("cant-stop", "Can't Stop", FACES,
     "4d6: can two of the dice make 7",
     """let p = 4d6 in (p count 1 >= 1 and p count 6 >= 1) or (p count 2 >= 1 and p count 5 >= 1)
        or (p count 3 >= 1 and p count 4 >= 1)""")
def cant_stop():
    return icepool.map(lambda roll: int(any(a + b == 7 for a, b in combinations(roll, 2))),
                       d6.pool(4))


@row("blades-action", "Blades in the Dark", FACES,
     "3d6 action roll: the highest die, two 6s a critical (7)",
     "let p = 3d6 in if p count 6 >= 2 then 7 else p highest")
def blades_action():
    return icepool.map(lambda roll: 7 if roll.count(6) >= 2 else roll[-1], d6.pool(3))


@row("poker-dice", "Poker Dice", FACES,
     "rank of a 5d6 hand: nothing, pair, two pair, three, straight, full house, four, five",
     """let p = 5d6 in let m = p maxset in
        if m == 5 then 7 else if m == 4 then 6 else if m == 3 and p sets 2 == 2 then 5
        else if p straight == 5 then 4 else if m == 3 then 3 else if p sets 2 == 2 then 2 else m - 1""")
def poker_dice():
    def rank(roll):
        c = sorted(Counter(roll).values(), reverse=True)
        if c[0] == 5:
            return 7
        if c[0] == 4:
            return 6
        if c[:2] == [3, 2]:
            return 5
        if max_run(roll) == 5:
            return 4
        if c[0] == 3:
            return 3
        if c[:2] == [2, 2]:
            return 2
        return c[0] - 1

    return icepool.map(rank, d6.pool(5))


# ---------------------------------------------------------------------------
# 5. Exploding and rerolled dice read through formulas


@row("wild-die", "Savage Worlds", EXPLODE,
     "acing d8 trait and d6 wild die against 4: snake eyes -1, fail, success, raises",
     """let a = d8 explode in let w = d6 explode in let t = max(a, w) in
        if a == 1 and w == 1 then -1 else if t < 4 then 0 else 1 + (t - 4) / 4""")
def wild_die():
    def result(a, w):
        t = max(a, w)
        return -1 if a == 1 and w == 1 else 0 if t < 4 else 1 + (t - 4) // 4

    return icepool.map(result, d8.explode(depth=20), d6.explode(depth=20))


@row("penetration", "HackMaster 5e", EXPLODE,
     "2d8 penetrating: a top face rolls again at -1",
     "let a = d8 explode in let b = d8 explode in (a - a / 8) + (b - b / 8)")
def penetration():
    die = d8.explode(depth=20).map(lambda a: a - a // 8)
    return die + die


@row("feng-shui", "Feng Shui", EXPLODE,
     "positive d6 less negative d6, each open-ended on 6",
     "d6 explode - d6 explode")
def feng_shui():
    return d6.explode(depth=20) - d6.explode(depth=20)


@row("weg-wild-die", "Star Wars (West End Games D6)", EXPLODE,
     "4D with an exploding wild die; a wild 1 removes itself and the highest die",
     "let w = d6 explode in if w == 1 then 3d6 drop highest else 3d6 + w")
def weg_wild_die():
    return d6.explode(depth=20).map(lambda w: d6.pool(3).lowest(2).sum() if w == 1 else 3 @ d6 + w)


@row("great-weapon", "Dungeons & Dragons 5e", EXPLODE,
     "Great Weapon Fighting greatsword: 2d6 rerolling 1s and 2s once, + 4",
     "(2d6 reroll <= 2) + 4")
def great_weapon():
    return 2 @ d6.reroll([1, 2], depth=1) + 4


@row("roll-and-keep", "Legend of the Five Rings 4e", EXPLODE,
     "6k3: six exploding d10s, keep the highest 3",
     "6d10 explode keep highest 3")
def roll_and_keep():
    return d10.explode(depth=20).pool(6).highest(3).sum()


@row("rule-of-six", "Shadowrun 5e", EXPLODE,
     "12 dice with Edge: hits on 5+, every 6 adds a die",
     "12d6 again 6 count >= 5")
def rule_of_six():
    chain = d6.map(lambda x: 1 + Again if x == 6 else int(x >= 5), again_depth=20)
    return 12 @ chain


@row("nine-again", "Chronicles of Darkness", EXPLODE,
     "8 dice, 9-again: successes on 8+, every 9 or 10 adds a die",
     "8d10 again >= 9 count >= 8")
def nine_again():
    chain = d10.map(lambda x: 1 + Again if x >= 9 else int(x >= 8), again_depth=20)
    return 8 @ chain


@row("bonus-die", "Call of Cthulhu 7e", EXPLODE,
     "d100 with a bonus tens die against 40: fumble -1, fail, regular, hard, extreme",
     """let u = d10 - 1 in let a = d10 - 1 in let b = d10 - 1 in
        let r = min(if a + u == 0 then 100 else 10 * a + u, if b + u == 0 then 100 else 10 * b + u) in
        if r > 95 then -1 else (r <= 40) + (r <= 20) + (r <= 8)""")
def bonus_die():
    def level(u, a, b):
        r = min(100 if t + u == 0 else 10 * t + u for t in (a, b))
        return -1 if r > 95 else (r <= 40) + (r <= 20) + (r <= 8)

    return icepool.map(level, d10 - 1, d10 - 1, d10 - 1)


# ---------------------------------------------------------------------------
# 6. Big pools


@row("apocalypse-500", "Warhammer 40,000 (Apocalypse)", BIG,
     "500 lasguns hitting on 4+",
     "500d6 count >= 4")
def apocalypse_500():
    return 500 @ (d6 >= 4)


@row("apocalypse-300-shots", "Warhammer 40,000 (Apocalypse)", BIG,
     "three batteries of 100 shots: hit 3+, wound 4+",
     """let h1 = 100d6 count >= 3 in let h2 = 100d6 count >= 3 in let h3 = 100d6 count >= 3 in
        (h1)d6 count >= 4 + (h2)d6 count >= 4 + (h3)d6 count >= 4""")
def apocalypse_300_shots():
    battery = (100 @ (d6 >= 3)) @ (d6 >= 4)
    return battery + battery + battery


@row("apocalypse-chain-300", "Warhammer 40,000 (Apocalypse)", BIG,
     "300 shots as one chain: hit 3+, each hit wounds 4+",
     "let hits = 300d6 count >= 3 in (hits)d6 count >= 4")
def apocalypse_chain_300():
    return (300 @ (d6 >= 3)) @ (d6 >= 4)


@row("monster-rating", "Tunnels & Trolls 5e", BIG,
     "a monster of rating 1000: 101d6 + 500",
     "101d6 + 500")
def monster_rating():
    return 101 @ d6 + 500


@row("axis-allies", "Axis & Allies", BIG,
     "120 infantry (hit on 1) and 40 tanks (hit on 3 or less) attack",
     "120d6 count 1 + 40d6 count <= 3")
def axis_allies():
    return 120 @ (d6 <= 1) + 40 @ (d6 <= 3)


@row("hero-body", "Champions (HERO System)", BIG,
     "BODY of a 60d6 normal attack: 1 none, 2-5 one, 6 two",
     "let p = 60d6 in p count >= 2 + p count 6")
def hero_body():
    return 60 @ d6.map({1: 0, 2: 1, 3: 1, 4: 1, 5: 1, 6: 2})


@row("goblin-volley", "Dungeons & Dragons 5e", BIG,
     "200 goblin archers, +4 against AC 15: hits, a 20 counting twice",
     "let p = 200d20 in p count >= 11 + p count 20")
def goblin_volley():
    return 200 @ d20.map(lambda x: (x >= 11) + (x == 20))


@row("exalted-50", "Exalted 3e", BIG,
     "a 50-die pool: successes on 7+, 10s count twice",
     "let p = 50d10 in p count >= 7 + p count 10")
def exalted_50():
    return 50 @ d10.map(lambda x: (x >= 7) + (x == 10))

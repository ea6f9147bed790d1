"""Published mechanics, at least 8 in each class that leans on one part of the language
(categories 7 to 14 of mechanics.py)."""
from collections import Counter
from functools import cache
from itertools import combinations

import icepool
from icepool import Again, Vector, d3, d6, d8, d10, d12, d20

from rowbook import *  # noqa: F401,F403 -- the categories and the decorators


# ---------------------------------------------------------------------------
# 7. Dice counts that shrink inside a `repeat`


@row("risus-combat", "Risus", SHRINK,
     "a cliché of 4 dice against one of 3: each round the lower total loses a die "
     "(a tie: nobody), to the last die: dice left (negative: the opponent's)",
     """repeat a = 4, b = 3 until a == 0 or b == 0
        do let x = (a)d6 in let y = (b)d6 in a = a - (x < y), b = b - (y < x)
        then a - b""")
def risus_combat():
    @cache
    def round_(a, b):
        if a == 0 or b == 0:
            return a, b
        return icepool.map(lambda x, y: (a - (x < y), b - (y < x)), a @ d6, b @ d6)

    # 100 rounds at most, as the `repeat` (its default limit): a run of ties can go on.
    return icepool.map(round_, (4, 3), star=True, repeat=100).map(lambda a, b: a - b)


@row("ti4-space-combat", "Twilight Imperium 4e", SHRINK,
     "4 cruisers (combat 7) against 5 destroyers (combat 9), every ship rolls a d10 a "
     "round, each hit destroys a ship, to the end: ships left (negative: the destroyers')",
     """repeat c = 4, d = 5 until c <= 0 or d <= 0
        do let hc = (c)d10 count >= 7 in let hd = (d)d10 count >= 9 in
           c = max(0, c - hd), d = max(0, d - hc)
        then c - d""")
def ti4_space_combat():
    def round_(c, d):
        if c <= 0 or d <= 0:
            return c, d
        return icepool.map(lambda hc, hd: (max(0, c - hd), max(0, d - hc)),
                           c @ (d10 >= 7), d @ (d10 >= 9))

    return icepool.map(round_, (4, 5), repeat="inf").map(lambda c, d: c - d)


@row("wotr-field-battle", "War of the Ring (2nd edition)", SHRINK,
     "8 Shadow regulars attack 5 Free Peoples regulars in the field: a die per unit "
     "(at most 5), hits on 5+, each hit a unit, to the end: units left (negative: the "
     "defender's)",
     """repeat s = 8, f = 5 until s <= 0 or f <= 0
        do let hs = (min(s, 5))d6 count >= 5 in let hf = (min(f, 5))d6 count >= 5 in
           s = max(0, s - hf), f = max(0, f - hs)
        then s - f""")
def wotr_field_battle():
    hit = d6 >= 5

    def round_(s, f):
        if s <= 0 or f <= 0:
            return s, f
        return icepool.map(lambda hs, hf: (max(0, s - hf), max(0, f - hs)),
                           min(s, 5) @ hit, min(f, 5) @ hit)

    return icepool.map(round_, (8, 5), repeat="inf").map(lambda s, f: s - f)


@row("elder-sign-task", "Elder Sign", SHRINK,
     "a task of 5 investigation with six green dice (1, 2, 3 investigation, lore, peril, "
     "terror): each roll that fails loses a die (no focus, no help): 1 if completed",
     """repeat n = 6, done = 0 until done or n == 0
        do done = (n)d{1, 2, 3, lore=0, peril=0, terror=0} >= 5, n = n - 1
        then done""")
def elder_sign_task():
    green = icepool.Die([1, 2, 3, 0, 0, 0])

    def attempt(n, done):
        if done or n == 0:
            return n, done
        return (n @ green).map(lambda total: (n - 1, int(total >= 5)))

    return icepool.map(attempt, (6, 0), repeat="inf").map(lambda n, done: done)


@row("axis-allies-battle", "Axis & Allies", SHRINK,
     "6 infantry attack 4 infantry (hit on 1 attacking, 2 or less defending), to the end: "
     "units left (negative: the defender's)",
     """repeat a = 6, d = 4 until a <= 0 or d <= 0
        do let ha = (a)d6 count 1 in let hd = (d)d6 count <= 2 in
           a = max(0, a - hd), d = max(0, d - ha)
        then a - d""")
def axis_allies_battle():
    def round_(a, d):
        if a <= 0 or d <= 0:
            return a, d
        return icepool.map(lambda ha, hd: (max(0, a - hd), max(0, d - ha)),
                           a @ (d6 == 1), d @ (d6 <= 2))

    return icepool.map(round_, (6, 4), repeat="inf").map(lambda a, d: a - d)


@row("sr5-extended-test", "Shadowrun 5e", SHRINK,
     "an extended test of 10 dice against threshold 12 (hits 5+), each roll a die less: "
     "the rolls taken, 0 if the pool runs dry first",
     """repeat n = 10, hits = 0 until hits >= 12 or n == 0
        do hits = hits + (n)d6 count >= 5, n = n - 1
        then if hits >= 12 then rounds else 0""")
def sr5_extended_test():
    def roll(n, hits):
        if hits >= 12 or n == 0:
            return n, hits
        return (n @ (d6 >= 5)).map(lambda h: (n - 1, hits + h))

    end = icepool.map_and_time(roll, (10, 0), time_limit=10)
    return end.map(lambda state, rolls: rolls if state[1] >= 12 else 0)


@row("wh40k-firefight", "Warhammer 40,000", SHRINK,
     "5 Space Marines (2 wounds each; bolters hit 3+, wound 3+, Guard save 5+) and 10 "
     "Guardsmen (lasguns hit 4+, wound 5+, Marine save 3+) shoot by turns, the Marines "
     "first, one shot a model left, to the end: models left (negative: the Guard's)",
     """repeat w = 10, g = 10 until w <= 0 or g <= 0
        do let left = max(0, g - (((((w + 1) / 2)d6 count >= 3)d6 count >= 3)d6 count <= 4)) in
           g = left, w = max(0, w - ((((left)d6 count >= 4)d6 count >= 5)d6 count <= 2))
        then (w + 1) / 2 - g""")
def wh40k_firefight():
    @cache
    def turn(w, g):
        if w <= 0 or g <= 0:
            return w, g
        marines = (w + 1) // 2  # the wounded Marine takes the next wound
        killed = ((marines @ (d6 >= 3)) @ (d6 >= 3)) @ (d6 <= 4)

        def guard_fires(k):
            left = max(0, g - k)
            wounds = ((left @ (d6 >= 4)) @ (d6 >= 5)) @ (d6 <= 2)
            return wounds.map(lambda u: (max(0, w - u), left))

        return killed.map(guard_fires)

    # 100 turns at most, as the `repeat` (its default limit): both sides can miss.
    end = icepool.map(turn, (10, 10), star=True, repeat=100)
    return end.map(lambda w, g: (w + 1) // 2 - g)


@cache
def eclipse_round(a, d):
    """One round of Eclipse's ion cannons (a hit on a 6 destroys a ship), the defenders'
    `d` ships firing first: the ships left on each side."""
    if a <= 0 or d <= 0:
        return a, d

    def attackers_fire(hits_on_a):
        left = max(0, a - hits_on_a)
        return (left @ (d6 == 6)).map(lambda h: (left, max(0, d - h)))

    return (d @ (d6 == 6)).map(attackers_fire)


@row("eclipse-interceptors", "Eclipse", SHRINK,
     "3 Interceptors attack 3 (one ion cannon each, hits on 6, a hit destroys one); equal "
     "initiative, so the defenders fire first each round, to the end: ships left "
     "(negative: the defender's)",
     """repeat a = 3, d = 3 until a <= 0 or d <= 0
        do let left = max(0, a - (d)d6 count 6) in a = left, d = max(0, d - (left)d6 count 6)
        then a - d""")
def eclipse_interceptors():
    # 100 rounds at most, as the `repeat` (its default limit): both sides can miss.
    return icepool.map(eclipse_round, (3, 3), star=True, repeat=100).map(lambda a, d: a - d)


@row("ship-captain-crew-turn", "Ship, Captain, and Crew", SHRINK,
     "a turn of up to three rolls: a 6 (the ship), then a 5 (the captain), then a 4 (the "
     "crew) are set aside as they come, the rest rolled again; the roll that completes "
     "the crew scores its other two dice as cargo, else 0",
     """repeat s = 0, r = 0, cargo = 0 until s == 3 or r == 3
        do let p = (5 - s)d6 in let ship = s >= 1 or p count 6 >= 1 in
           let captain = s >= 2 or (ship and p count 5 >= 1) in
           let crew = captain and p count 4 >= 1 in
           s = ship + captain + crew, r = r + 1,
           cargo = if crew then p sum - 15 + (s >= 1) * 6 + (s >= 2) * 5 else 0
        then cargo""")
def ship_captain_crew_turn():
    @cache
    def roll(s, r, cargo):
        if s == 3 or r == 3:
            return s, r, cargo

        def set_aside(dice):
            ship = s >= 1 or 6 in dice
            captain = s >= 2 or (ship and 5 in dice)
            crew = captain and 4 in dice
            kept = sum(face for face, have in ((6, s < 1), (5, s < 2), (4, True)) if have)
            return ship + captain + crew, r + 1, sum(dice) - kept if crew else 0

        return icepool.map(set_aside, d6.pool(5 - s))

    end = icepool.map(roll, (0, 0, 0), star=True, repeat=3)
    return end.map(lambda s, r, cargo: cargo)


# ---------------------------------------------------------------------------
# 8. Dice counts worked out by arithmetic from earlier rolls


@row("scorching-ray", "Dungeons & Dragons 5e", ARITH,
     "Scorching Ray: three rays at +7 against AC 15 (a 1 misses, a 20 crits), 2d6 fire "
     "a ray, the dice doubled on a crit",
     "let r = 3d20 in (2 * r count >= 8 + 2 * r count 20)d6")
def scorching_ray():
    dice_per_ray = d20.map(lambda x: 4 if x == 20 else 2 if x >= 8 else 0)
    return (3 @ dice_per_ray) @ d6


@row("gurps-rapid-fire", "GURPS 4e", ARITH,
     "a 3-round burst (RoF 3, Recoil 2) at skill 14: a hit, one more per 2 points made "
     "by, at most 3; 5d a hit",
     "let r = 3d6 in if r <= 14 then (5 * min(3, 1 + (14 - r) / 2))d6 else 0")
def gurps_rapid_fire():
    def burst(r):
        if r > 14:
            return 0
        return (5 * min(3, 1 + (14 - r) // 2)) @ d6

    return (3 @ d6).map(burst)


@row("lethal-hits", "Warhammer 40,000", ARITH,
     "20 shots with Lethal Hits: hit 3+, a 6 wounds outright, the other hits wound 4+; "
     "save 3+: unsaved wounds",
     """let p = 20d6 in let w = p count 6 + (p count >= 3 - p count 6)d6 count >= 4 in
        (w)d6 count <= 2""")
def lethal_hits():
    # Each shot on its own: a 6 wounds, a 3-5 rolls to wound, a 1-2 misses.
    shot = d6.map(lambda x: 1 if x == 6 else (d6 >= 4) if x >= 3 else 0)
    return (20 @ shot) @ (d6 <= 2)


@row("devastating-wounds", "Warhammer 40,000", ARITH,
     "12 wound rolls (4+) with Devastating Wounds, damage 1: a 6 is a mortal wound, "
     "the other wounds face a 4+ save: wounds through",
     "let w = 12d6 in w count 6 + (w count >= 4 - w count 6)d6 count <= 3")
def devastating_wounds():
    wound = d6.map(lambda x: 1 if x == 6 else (d6 <= 3) if x >= 4 else 0)
    return 12 @ wound


@row("wfb-ward-save", "Warhammer Fantasy Battle", ARITH,
     "10 attacks: hit 4+, wound 4+, armour save 5+, then a 5+ ward save: wounds through",
     """let w = (10d6 count >= 4)d6 count >= 4 in let a = w - (w)d6 count >= 5 in
        a - (a)d6 count >= 5""")
def wfb_ward_save():
    wounds = (10 @ (d6 >= 4)) @ (d6 >= 4)
    past_armour = wounds.map(lambda w: w @ (d6 <= 4))
    return past_armour.map(lambda a: a @ (d6 <= 4))


@row("aos-mortal-wounds", "Warhammer Age of Sigmar", ARITH,
     "12 attacks hitting 3+, an unmodified 6 a mortal wound (no more rolls); the other "
     "hits wound 3+, save 4+: wounds through",
     """let p = 12d6 in
        p count 6 + ((p count >= 3 - p count 6)d6 count >= 3)d6 count <= 3""")
def aos_mortal_wounds():
    attack = d6.map(lambda x: 1 if x == 6 else ((d6 >= 3) @ (d6 <= 3)) if x >= 3 else 0)
    return 12 @ attack


@row("legion-attack", "Star Wars: Legion", ARITH,
     "6 red attack dice (surges blank) against light cover (cancels a hit) and white "
     "defence dice, one a hit or crit left: wounds",
     """let a = 6d{hit*5, crit, surge, blank} in
        let hits = max(0, a count hit - 1) + a count crit in
        hits - (hits)d{block, surge, blank*4} count block""")
def legion_attack():
    red = icepool.Die([Vector((1, 0))] * 5 + [Vector((0, 1)), Vector((0, 0)), Vector((0, 0))])

    def defend(hits, crits):
        left = max(0, hits - 1) + crits
        return left - left @ icepool.Die([1, 0, 0, 0, 0, 0])

    return (6 @ red).map(defend)


@row("aa-bombing-raid", "Axis & Allies", ARITH,
     "a strategic bombing raid: 4 bombers through an AA gun (a die each, hit on 1), the "
     "rest roll a die each: IPCs lost, at most the territory's 10",
     "let shot = 4d6 count 1 in min(10, (4 - shot)d6)")
def aa_bombing_raid():
    shot_down = 4 @ (d6 == 1)
    return shot_down.map(lambda s: ((4 - s) @ d6).map(lambda x: min(10, x)))


# ---------------------------------------------------------------------------
# 9. A rolled pool bound by `let` and read as a number


@row("fireball-save", "Dungeons & Dragons 5e", LET_NUMBER,
     "Fireball: 8d6 fire, a Dexterity save (+2 against DC 15) halves it, rounded down",
     "let dmg = 8d6 in if d20 + 2 >= 15 then dmg / 2 else dmg")
def fireball_save():
    return icepool.map(lambda dmg, save: dmg // 2 if save + 2 >= 15 else dmg, 8 @ d6, d20)


@row("pf2-basic-save", "Pathfinder 2e", LET_NUMBER,
     "a 6d6 fireball against a basic Reflex save (+8 against DC 21, a 20 or a 1 one "
     "step): none, half, full or double",
     """let dmg = 6d6 in let r = d20 in let t = r + 8 in
        let deg = (t >= 31) + (t >= 21) + (t > 11) + (r == 20) - (r == 1) in
        if deg >= 3 then 0 else if deg == 2 then dmg / 2 else if deg == 1 then dmg else 2 * dmg""")
def pf2_basic_save():
    def save(r):
        t = r + 8
        degree = 3 if t >= 31 else 2 if t >= 21 else 1 if t >= 12 else 0
        return max(0, min(3, degree + (r == 20) - (r == 1)))

    def damage(dmg, degree):
        return (0, dmg // 2, dmg, 2 * dmg)[3 - degree]

    return icepool.map(damage, 6 @ d6, d20.map(save))


@row("traveller-attack", "Traveller (Mongoose 2e)", LET_NUMBER,
     "an attack at 2d6 + 2 against 8: the Effect adds to 3d6 damage, less armour 4",
     """let effect = 2d6 + 2 - 8 in
        if effect < 0 then 0 else (let dmg = 3d6 + effect in if dmg > 4 then dmg - 4 else 0)""")
def traveller_attack():
    def hit(effect):
        if effect < 0:
            return 0
        return (3 @ d6 + effect - 4).map(lambda x: max(0, x))

    return (2 @ d6 + 2 - 8).map(hit)


@row("hero-killing-attack", "Champions (HERO System)", LET_NUMBER,
     "a 2d6 killing attack: BODY the dice, STUN the BODY times 1d3, against 8 PD: STUN "
     "taken",
     "let body = 2d6 in max(0, body * d3 - 8)")
def hero_killing_attack():
    return icepool.map(lambda body, mult: max(0, body * mult - 8), 2 @ d6, d3)


@row("apocalypse-move", "Apocalypse World", LET_NUMBER,
     "a move at 2d6 + 1: a miss (6-), a weak hit (7-9), a strong hit (10+)",
     "let r = 2d6 + 1 in if r >= 10 then 2 else if r >= 7 then 1 else 0")
def apocalypse_move():
    return (2 @ d6 + 1).map(lambda r: 2 if r >= 10 else 1 if r >= 7 else 0)


@row("fate-opposed", "Fate Core", LET_NUMBER,
     "4dF + 3 against a passive opposition of +2: fail, tie, success, success with style",
     """let r = 4dF + 3 in if r >= 2 + 3 then 3 else if r > 2 then 2 else if r == 2 then 1 else 0""")
def fate_opposed():
    fudge = icepool.Die([-1, 0, 1])
    return (4 @ fudge + 3).map(lambda r: 3 if r - 2 >= 3 else 2 if r > 2 else 1 if r == 2 else 0)


@row("savage-damage", "Savage Worlds", LET_NUMBER,
     "Strength d8 and a long sword d8, each acing, against Toughness 7: 0 nothing, 1 "
     "Shaken, 2 or more a wound per raise",
     "let dmg = d8 explode + d8 explode in if dmg < 7 then 0 else 1 + (dmg - 7) / 4")
def savage_damage():
    aces = d8.explode(depth=20)
    return (aces + aces).map(lambda dmg: 0 if dmg < 7 else 1 + (dmg - 7) // 4)


@row("blood-bowl-injury", "Blood Bowl (2020)", LET_NUMBER,
     "a block knocks down an AV 9+ player; Mighty Blow (+1) to the armour roll if that "
     "breaks it, else to the injury: 0 held, 1 stunned, 2 KO'd, 3 casualty",
     """let av = 2d6 in let inj = 2d6 in
        if av >= 9 then (if inj + 1 >= 10 then 3 else if inj + 1 >= 8 then 2 else 1)
        else if av + 1 >= 9 then (if inj >= 10 then 3 else if inj >= 8 then 2 else 1)
        else 0""")
def blood_bowl_injury():
    def injury(total):
        return 3 if total >= 10 else 2 if total >= 8 else 1

    def block(armour, inj):
        if armour >= 9:
            return injury(inj + 1)  # Mighty Blow on the injury
        if armour + 1 >= 9:
            return injury(inj)      # Mighty Blow spent to break the armour
        return 0

    return icepool.map(block, 2 @ d6, 2 @ d6)


# ---------------------------------------------------------------------------
# 10. One pool read several ways at once


@row("generala", "Generala", READS,
     "the best category for one throw of 5d6: generala 50, poker 40, full 30, escalera "
     "(1-5 or 2-6) 20, or a number's dice summed",
     """let p = 5d6 in max(50 * (p maxset == 5), 40 * (p maxset == 4),
        30 * (p sets 3 == 1 and p sets 2 == 2), 20 * (p straight == 5),
        p count 1, 2 * p count 2, 3 * p count 3, 4 * p count 4, 5 * p count 5, 6 * p count 6)""")
def generala():
    def best(roll):
        counts = Counter(roll)
        shape = sorted(counts.values())
        return max(50 * (shape == [5]), 40 * (shape == [1, 4]), 30 * (shape == [2, 3]),
                   20 * (set(roll) in ({1, 2, 3, 4, 5}, {2, 3, 4, 5, 6})),
                   *(face * n for face, n in counts.items()))

    return icepool.map(best, d6.pool(5))


@row("ship-captain-crew", "Ship, Captain, and Crew", READS,
     "one throw of five dice: with a 6, a 5 and a 4 among them the other two dice are the "
     "cargo scored, else 0",
     """let p = 5d6 in
        if p count 6 >= 1 and p count 5 >= 1 and p count 4 >= 1 then p sum - 15 else 0""")
def ship_captain_crew():
    return icepool.map(lambda roll: sum(roll) - 15 if {4, 5, 6} <= set(roll) else 0,
                       d6.pool(5))


@row("one-ring-weary", "The One Ring (2nd edition)", READS,
     "a Weary hero's roll against TN 14: the Feat die (Eye 0, Gandalf rune a success) and "
     "3 Success dice whose 1-3 count 0; each 6 a tengwar: fail, success, great, "
     "extraordinary",
     """let f = d12 in let s = 3d6 in
        let total = (if f <= 10 then f else 0) + s sum - s count 1 - 2 * s count 2 - 3 * s count 3 in
        if f == 12 or total >= 14 then 1 + min(s count 6, 2) else 0""")
def one_ring_weary():
    def test(feat, success):
        total = (feat if feat <= 10 else 0) + sum(x for x in success if x >= 4)
        if feat == 12 or total >= 14:
            return 1 + min(success.count(6), 2)
        return 0

    return icepool.map(test, d12, d6.pool(3))


@row("exalted-botch", "Exalted 3e", READS,
     "8 dice: successes on 7+, 10s twice; no success with a 1 a botch (-1)",
     """let p = 8d10 in let s = p count >= 7 + p count 10 in
        if s == 0 and p count 1 >= 1 then -1 else s""")
def exalted_botch():
    def roll(r):
        s = sum((x >= 7) + (x == 10) for x in r)
        return -1 if s == 0 and 1 in r else s

    return icepool.map(roll, d10.pool(8))


@row("cee-lo", "Cee-lo", READS,
     "a throw of three dice ranked: 1-2-3 loses (0), a pair's odd die is the point (1-6), "
     "triples (7-12), 4-5-6 wins (13); no combination throws again (-1)",
     """let p = 3d6 in
        if p count 4 == 1 and p count 5 == 1 and p count 6 == 1 then 13
        else if p count 1 == 1 and p count 2 == 1 and p count 3 == 1 then 0
        else if p maxset == 3 then 6 + p mode
        else if p maxset == 2 then p sum - 2 * p mode else -1""")
def cee_lo():
    def rank(roll):
        a, b, c = roll
        if (a, b, c) == (4, 5, 6):
            return 13
        if (a, b, c) == (1, 2, 3):
            return 0
        if a == c:
            return 6 + a
        if a == b:
            return c
        if b == c:
            return a
        return -1

    return icepool.map(rank, d6.pool(3))


@row("bunco", "Bunco", READS,
     "a throw of three dice in round 1: three 1s a bunco (21), any other three alike 5, "
     "else a point a 1",
     "let p = 3d6 in if p count 1 == 3 then 21 else if p maxset == 3 then 5 else p count 1")
def bunco():
    def points(roll):
        if roll == (1, 1, 1):
            return 21
        if len(set(roll)) == 1:
            return 5
        return roll.count(1)

    return icepool.map(points, d6.pool(3))


@row("cortex-total", "Cortex Prime", READS,
     "a d10, two d8s and a d6: the total of the two best dice that are not 1s (hitches); "
     "every die a 1 is a botch (-1)",
     """let p = [1d10, 2d8, 1d6] in let h = p count 1 in
        if h == 4 then -1 else if h == 3 then p highest else p keep highest 2 sum""")
def cortex_total():
    def total(a, b, c, e):
        kept = sorted(x for x in (a, b, c, e) if x != 1)
        return sum(kept[-2:]) if kept else -1

    return icepool.map(total, d10, d8, d8, d6)


@row("wrath-glory-shifts", "Wrath & Glory", READS,
     "6 dice against DN 3: 4-5 an icon, a 6 two (exalted); exalted icons beyond the DN "
     "shift into extra damage dice: -1 a failure, else the dice shifted",
     """let p = 6d6 in let icons = p count >= 4 + p count 6 in
        if icons < 3 then -1 else min(p count 6, (icons - 3) / 2)""")
def wrath_glory_shifts():
    def shifts(roll):
        icons = sum((x >= 4) + (x == 6) for x in roll)
        if icons < 3:
            return -1
        exalted = roll.count(6)
        # Shift 6s while the icons left still meet the DN.
        shifted = 0
        while shifted < exalted and icons - 2 * (shifted + 1) >= 3:
            shifted += 1
        return shifted

    return icepool.map(shifts, d6.pool(6))


# ---------------------------------------------------------------------------
# 11. Several pools compared face by face


@row("dryh-dominance", "Don't Rest Your Head", POOLS,
     "Discipline 3 dice, Exhaustion 1, Madness 2 against Pain 3: the pool that dominates "
     "(the highest die, then more of it, then the next face down; identical pools go "
     "Discipline, Madness, Exhaustion, Pain): 1 to 4 in that order",
     """let d = 3d6 in let e = 1d6 in let m = 2d6 in let p = 3d6 in
        if cancel(d, m) highest >= cancel(m, d) highest and cancel(d, e) highest >= cancel(e, d) highest
           and cancel(d, p) highest >= cancel(p, d) highest then 1
        else if cancel(m, e) highest >= cancel(e, m) highest
           and cancel(m, p) highest >= cancel(p, m) highest then 2
        else if cancel(e, p) highest >= cancel(p, e) highest then 3 else 4""")
def dryh_dominance():
    def strength(roll):
        # How many dice show each face, from 6 down: compared face by face.
        return tuple(roll.count(face) for face in range(6, 0, -1))

    def dominant(d, e, m, p):
        ranked = [(strength(d), 4, 1), (strength(m), 3, 2), (strength(e), 2, 3),
                  (strength(p), 1, 4)]
        return max(ranked)[2]

    return icepool.map(dominant, d6.pool(3), d6.pool(1), d6.pool(2), d6.pool(3))


@row("armour-battles-first-pulse", "Armour Battles", POOLS,
     "US 5 command dice against German 4: more 1s than 6s is a Command Failure (both: "
     "the turn ends, 2); else the most 6s act first, ties to the most 5s, 4s, 3s, 2s "
     "(still tied: roll again, 0): 1 US first, -1 German",
     """let a = 5d6 in let b = 4d6 in
        let fa = a count 1 > a count 6 in let fb = b count 1 > b count 6 in
        if fa and fb then 2 else if fa then -1 else if fb then 1
        else if a count 6 != b count 6 then (if a count 6 > b count 6 then 1 else -1)
        else if a count 5 != b count 5 then (if a count 5 > b count 5 then 1 else -1)
        else if a count 4 != b count 4 then (if a count 4 > b count 4 then 1 else -1)
        else if a count 3 != b count 3 then (if a count 3 > b count 3 then 1 else -1)
        else if a count 2 != b count 2 then (if a count 2 > b count 2 then 1 else -1)
        else 0""")
def armour_battles_first_pulse():
    def first(us, german):
        us_fails = us.count(1) > us.count(6)
        german_fails = german.count(1) > german.count(6)
        if us_fails and german_fails:
            return 2
        if us_fails or german_fails:
            return 1 if german_fails else -1
        for face in (6, 5, 4, 3, 2):
            if us.count(face) != german.count(face):
                return 1 if us.count(face) > german.count(face) else -1
        return 0

    return icepool.map(first, d6.pool(5), d6.pool(4))


@row("sbg-duel", "Middle-earth Strategy Battle Game", POOLS,
     "a duel: 2 Good dice against 3 Evil, Fight values equal: the highest die wins, a tie "
     "a roll-off (4+ Good): 1 if Good wins",
     """let g = 2d6 in let e = 3d6 in
        if g highest > e highest then 1 else if e highest > g highest then 0 else d6 >= 4""")
def sbg_duel():
    def duel(good, evil, roll_off):
        return 1 if good > evil else 0 if evil > good else int(roll_off >= 4)

    return icepool.map(duel, icepool.highest(d6, d6), icepool.highest(d6, d6, d6), d6)


@row("ore-contest", "Godlike", POOLS,
     "a dynamic contest of 6d10 against 6d10: the wider set wins, equal widths the "
     "taller; 1, -1, 0 when neither has a set or the sets are alike",
     """let a = 6d10 in let b = 6d10 in let wa = a maxset in let wb = b maxset in
        if wa < 2 and wb < 2 then 0 else if wa > wb then 1 else if wb > wa then -1
        else if a mode > b mode then 1 else if b mode > a mode then -1 else 0""")
def ore_contest():
    best = d10.pool(6).largest_count_and_outcome()  # (width, height) of the widest set

    def contest(a, b):
        if a[0] < 2 and b[0] < 2:
            return 0
        return (a > b) - (b > a)

    return icepool.map(contest, best, best, star=False)


@row("lnoe-fight", "Last Night on Earth", POOLS,
     "a hero's 2 fight dice against a zombie's 1: the hero's best must beat it (ties to "
     "the zombie); winning with doubles kills: -1 wound, 0 fended off, 1 killed",
     "let h = 2d6 in let z = d6 in if h highest > z then (if h maxset == 2 then 1 else 0) else -1")
def lnoe_fight():
    def fight(a, b, z):
        if max(a, b) <= z:
            return -1
        return 1 if a == b else 0

    return icepool.map(fight, d6, d6, d6)


@row("cthulhu-dark", "Cthulhu Dark", POOLS,
     "a human die and an occupation die with the Insight die: when the Insight die is "
     "above both, roll it again, above Insight 2 it rises: 1 if it rises",
     "let h = 2d6 in let i = d6 in if i > h highest then d6 > 2 else 0")
def cthulhu_dark():
    return icepool.map(lambda a, b, insight, again: int(insight > max(a, b) and again > 2),
                       d6, d6, d6, d6)


@row("space-hulk-assault", "Space Hulk (3rd edition)", POOLS,
     "close assault: a Terminator's die against a Genestealer's 3: the highest die wins, "
     "a tie a stand-off: 1 the Genestealer dies, -1 the Terminator, 0 neither",
     """let t = d6 in let g = 3d6 in
        if t > g highest then 1 else if g highest > t then -1 else 0""")
def space_hulk_assault():
    genestealer = icepool.highest(d6, d6, d6)
    return icepool.map(lambda t, g: (t > g) - (g > t), d6, genestealer)


@row("heroscape-attack", "Heroscape", POOLS,
     "4 attack dice against 3 defence dice (3 skulls, 2 shields, a blank): wounds, the "
     "skulls beyond the shields",
     """let a = 4d{skull*3, shield*2, blank} in let d = 3d{skull*3, shield*2, blank} in
        max(0, a count skull - d count shield)""")
def heroscape_attack():
    skull = icepool.Die([1, 1, 1, 0, 0, 0])
    shield = icepool.Die([0, 0, 0, 1, 1, 0])
    return (4 @ skull - 3 @ shield).map(lambda x: max(0, x))


@row("underworlds-attack", "Warhammer Underworlds", POOLS,
     "a 3-dice Hammer attack against a 1-die Shield defence: more criticals win, then "
     "more successes; equal successes drive back: 1 success, 0 driven back, -1 failed",
     """let a = 3d{hammer*2, swords, support, support+support, crit} in
        let d = 1d{shield*2, dodge, support, support+support, crit} in
        if a count crit != d count crit then (if a count crit > d count crit then 1 else -1)
        else if a count hammer > d count shield then 1
        else if a count hammer == d count shield and a count hammer + a count crit > 0 then 0
        else -1""")
def underworlds_attack():
    # (criticals, successes) a die.
    attack = icepool.Die([Vector((0, 1))] * 2 + [Vector((0, 0))] * 3 + [Vector((1, 0))])
    defence = icepool.Die([Vector((0, 1))] * 2 + [Vector((0, 0))] * 3 + [Vector((1, 0))])

    def resolve(a, d):
        if a[0] != d[0]:
            return 1 if a[0] > d[0] else -1
        if a[1] > d[1]:
            return 1
        return 0 if a[1] == d[1] and a[0] + a[1] > 0 else -1

    return icepool.map(resolve, 3 @ attack, 1 @ defence, star=False)


# ---------------------------------------------------------------------------
# 12. Cards dealt in order from one deck, each read apart
#
# `let a, b, c = deck{...} draw 3 in ...` binds the first, second and third card dealt.
# The syntax is new: the package refuses these rows until it is in (see the module's
# docstring). icepool deals them in order: `Deck.sequence(k)` (every order of k cards),
# or a card at a time from what is left (`Die(deck - dealt)`).

ONE_DECK = {**{rank: 4 for rank in range(1, 10)}, 10: 16}  # blackjack values, aces 1


@row("blackjack-hit", "Blackjack", DECK,
     "the player's first two cards, and one hit below 17: the total (an ace 11 where it "
     "does not bust), 0 a bust",
     """let a, b, c = deck{1*4, 2*4, 3*4, 4*4, 5*4, 6*4, 7*4, 8*4, 9*4, 10*16} draw 3 in
        let two = a + b + 10 * ((a == 1 or b == 1) and a + b <= 11) in
        if two >= 17 then two
        else (let t = a + b + c in let best = t + 10 * ((a == 1 or b == 1 or c == 1) and t <= 11) in
              if best > 21 then 0 else best)""")
def blackjack_hit():
    def hand(cards):
        total = sum(cards)
        return total + 10 if 1 in cards and total <= 11 else total

    def play(a, b, c):
        if hand((a, b)) >= 17:
            return hand((a, b))
        final = hand((a, b, c))
        return 0 if final > 21 else final

    return icepool.Deck(ONE_DECK).sequence(3).map(play)


@row("baccarat", "Baccarat (punto banco)", DECK,
     "a coup from an 8-deck shoe: cards 1 and 3 to the Player, 2 and 4 to the Banker, "
     "third cards by the tableau: 1 Player wins, -1 Banker, 0 a tie",
     """let p1, b1, p2, b2, x, y = deck{0*128, 1*32, 2*32, 3*32, 4*32, 5*32, 6*32, 7*32, 8*32, 9*32} draw 6 in
        let p = (p1 + p2) - (p1 + p2) / 10 * 10 in let k = (b1 + b2) - (b1 + b2) / 10 * 10 in
        if p >= 8 or k >= 8 then (p > k) - (k > p)
        else if p <= 5 then
          (let pf = (p + x) - (p + x) / 10 * 10 in
           let kf = if k <= 2 or (k == 3 and x != 8) or (k == 4 and x >= 2 and x <= 7)
                       or (k == 5 and x >= 4 and x <= 7) or (k == 6 and x >= 6 and x <= 7)
                    then (k + y) - (k + y) / 10 * 10 else k in
           (pf > kf) - (kf > pf))
        else (let kf = if k <= 5 then (k + x) - (k + x) / 10 * 10 else k in (p > kf) - (kf > p))""")
def baccarat():
    shoe = icepool.Deck({0: 128, **{v: 32 for v in range(1, 10)}})

    def banker_draws(k, player_third):
        return (k <= 2 or (k == 3 and player_third != 8) or (k == 4 and 2 <= player_third <= 7)
                or (k == 5 and 4 <= player_third <= 7) or (k == 6 and 6 <= player_third <= 7))

    @cache
    def left(dealt):
        """The shoe's cards left, as a die to deal from: `dealt` sorted."""
        return icepool.Die(shoe - dealt)

    def coup(p1, b1, p2, b2):
        dealt = tuple(sorted((p1, b1, p2, b2)))
        player, banker = (p1 + p2) % 10, (b1 + b2) % 10
        if player >= 8 or banker >= 8:
            return (player > banker) - (banker > player)
        if player <= 5:
            def after_player_draws(x):
                pf = (player + x) % 10
                if not banker_draws(banker, x):
                    return (pf > banker) - (banker > pf)
                return left(tuple(sorted(dealt + (x,)))).map(
                    lambda y: (pf > (banker + y) % 10) - ((banker + y) % 10 > pf))
            return left(dealt).map(after_player_draws)
        if banker <= 5:
            return left(dealt).map(
                lambda x: (player > (banker + x) % 10) - ((banker + x) % 10 > player))
        return (player > banker) - (banker > player)

    return shoe.sequence(4).map(coup)


@row("gloomhaven-rolling", "Gloomhaven", DECK,
     "an attack of 3 with the starting modifier deck and two +1 rolling cards (a perk): "
     "rolling cards add and draw again; x2 doubles the attack with them, null misses",
     """let a, b, c = deck{0*6, 1*5, -1*5, 2, -2, x2=100, null=-100, rolling=10*2} draw 3 in
        let r = (a == 10) + (a == 10 and b == 10) in
        let last = if a != 10 then a else if b != 10 then b else c in
        if last == 100 then 2 * (3 + r) else if last == -100 then 0 else max(0, 3 + r + last)""")
def gloomhaven_rolling():
    def attack(*cards):
        bonus = 0
        for card in cards:
            if card == 'rolling':
                bonus += 1
                continue
            if card == 'x2':
                return 2 * (3 + bonus)
            if card == 'null':
                return 0
            return max(0, 3 + bonus + card)

    # Outcomes of mixed types do not sort: deal them as named cards, in order.
    deck = icepool.Deck({(0, v): n for v, n in [(0, 6), (1, 5), (-1, 5), (2, 1), (-2, 1)]}
                        | {(1, 'x2'): 1, (2, 'null'): 1, (3, 'rolling'): 2})
    return deck.sequence(3).map(lambda a, b, c: attack(a[1], b[1], c[1]))


SUITED = [rank * 4 + suit for rank in range(2, 15) for suit in range(4)]  # 2 of clubs .. ace of spades


@row("savage-initiative", "Savage Worlds", DECK,
     "action cards from a 54-card deck (rank, then spades, hearts, diamonds, clubs; two "
     "jokers on top): a Level Headed hero is dealt two and keeps the better, the villain "
     "the third: 1 the hero acts first, -1 the villain, 0 both hold jokers",
     "let a, b, c = deck{" + ", ".join(map(str, SUITED)) + """, joker=100*2} draw 3 in
        (max(a, b) > c) - (c > max(a, b))""")
def savage_initiative():
    deck = icepool.Deck({**{card: 1 for card in SUITED}, 100: 2})

    def hero_card(a):
        return icepool.Die(deck - (a,)).map(lambda b: (max(a, b), a, b))

    def villain(best, a, b):
        return icepool.Die(deck - (a, b)).map(lambda c: (best > c) - (c > best))

    return icepool.Die(deck).map(hero_card).map(villain)


@row("bolt-action-order", "Bolt Action", DECK,
     "6 German and 4 British order dice drawn from the bag one by one: German units "
     "activated before the first British one",
     """let a, b, c, d, e, f = deck{german=1*6, british=2*4} draw 6 in
        if a == 2 then 0 else if b == 2 then 1 else if c == 2 then 2 else if d == 2 then 3
        else if e == 2 then 4 else if f == 2 then 5 else 6""")
def bolt_action_order():
    bag = icepool.Deck({'German': 6, 'British': 4})

    def run(*dice):
        return next((i for i, die in enumerate(dice) if die == 'British'), len(dice))

    return bag.sequence(6).map(run, star=True)


@row("pandemic-setup", "Pandemic", DECK,
     "the setup infections from the 48-card infection deck (12 black cities): 3 cubes on "
     "each of the first three cities, 2 on the next three, 1 on the last three: black "
     "cubes placed",
     """let a, b, c, d, e, f, g, h, i = deck{black=1*12, other=0*36} draw 9 in
        3 * (a + b + c) + 2 * (d + e + f) + g + h + i""")
def pandemic_setup():
    infection = icepool.Deck({'black': 12, 'other': 36})
    cubes = (3, 3, 3, 2, 2, 2, 1, 1, 1)

    def placed(*cards):
        return sum(n for n, card in zip(cubes, cards) if card == 'black')

    return infection.sequence(9).map(placed, star=True)


@row("blackjack-naturals", "Blackjack", DECK,
     "the deal, cards 1 and 3 to the player, 2 and 4 to the dealer: 1 the player alone "
     "has a natural (an ace and a ten), -1 the dealer alone, 0 neither or both",
     """let p1, h1, p2, h2 = deck{1*4, 2*4, 3*4, 4*4, 5*4, 6*4, 7*4, 8*4, 9*4, 10*16} draw 4 in
        let p = (p1 == 1 and p2 == 10) or (p1 == 10 and p2 == 1) in
        let h = (h1 == 1 and h2 == 10) or (h1 == 10 and h2 == 1) in p - h""")
def blackjack_naturals():
    def natural(*cards):
        return int(sorted(cards) == [1, 10])

    return icepool.Deck(ONE_DECK).sequence(4).map(
        lambda p1, h1, p2, h2: natural(p1, p2) - natural(h1, h2))


ACE_HIGH = ", ".join(f"{rank}*4" for rank in range(2, 15))


@row("in-between", "In-Between (Acey-Deucey)", DECK,
     "two posts turned up, then a third card (aces high): 1 if it falls strictly between "
     "them, 0 if not, -1 when the posts pair (no bet)",
     "let a, b, c = deck{" + ACE_HIGH + """} draw 3 in
        if a == b then -1 else (min(a, b) < c and c < max(a, b))""")
def in_between():
    deck = icepool.Deck({rank: 4 for rank in range(2, 15)})

    def third(a, b):
        if a == b:
            return -1
        low, high = sorted((a, b))
        return icepool.Die(deck - (a, b)).map(lambda c: int(low < c < high))

    return deck.sequence(2).map(third)


@row("holdem-flop-set", "Texas hold 'em", DECK,
     "two hole cards, then the flop: 1 if the hole cards pair and the flop brings a third "
     "of their rank (a set or better)",
     "let a, b, c, d, e = deck{" + ", ".join(f"{rank}*4" for rank in range(1, 14)) + """} draw 5 in
        a == b and (c == a or d == a or e == a)""")
def holdem_flop_set():
    deck = icepool.Deck({rank: 4 for rank in range(1, 14)})

    def flop(a, b):
        if a != b:
            return 0
        return icepool.map(lambda hand: int(a in hand), (deck - (a, b)).deal(3))

    return deck.sequence(2).map(flop)


@row("zombie-dice-throw", "Zombie Dice", DECK,
     "the first throw: three dice drawn from the cup (6 green, 4 yellow, 3 red) and "
     "rolled (brains on 3, 2 or 1 faces of 6): brains",
     """let a, b, c = deck{green=1*6, yellow=2*4, red=3*3} draw 3 in
        (if a == 1 then d{1*3, 0*3} else if a == 2 then d{1*2, 0*4} else d{1, 0*5})
        + (if b == 1 then d{1*3, 0*3} else if b == 2 then d{1*2, 0*4} else d{1, 0*5})
        + (if c == 1 then d{1*3, 0*3} else if c == 2 then d{1*2, 0*4} else d{1, 0*5})""")
def zombie_dice_throw():
    cup = icepool.Deck({'green': 6, 'yellow': 4, 'red': 3})
    brains = {'green': icepool.Die([1, 1, 1, 0, 0, 0]), 'yellow': icepool.Die([1, 1, 0, 0, 0, 0]),
              'red': icepool.Die([1, 0, 0, 0, 0, 0])}
    return cup.sequence(3).map(lambda a, b, c: brains[a] + brains[b] + brains[c])


@row("arkham-bless", "Arkham Horror: The Card Game", DECK,
     "a skill test of 4 against 3 with the Night of the Zealot bag (The Gathering, "
     "standard: skull -1, cultist -1, tablet -2, elder sign +1) and two Bless tokens "
     "(+2, reveal another): 1 if it passes",
     """let a, b, c = deck{1*2, 0*2, -1*6, -2*3, -3, -4, autofail=-100, bless=10*2} draw 3 in
        let blessed = 2 * ((a == 10) + (a == 10 and b == 10)) in
        let last = if a != 10 then a else if b != 10 then b else c in
        last != -100 and 4 + blessed + last >= 3""")
def arkham_bless():
    bag = icepool.Deck({(0, 1): 2, (0, 0): 2, (0, -1): 6, (0, -2): 3, (0, -3): 1, (0, -4): 1,
                        (1, 'autofail'): 1, (2, 'bless'): 2})

    def test(*tokens):
        modifier = 0
        for _, token in tokens:
            if token == 'bless':
                modifier += 2
                continue
            if token == 'autofail':
                return 0
            return int(4 + modifier + token >= 3)

    return bag.sequence(3).map(test, star=True)


# ---------------------------------------------------------------------------
# 13. A `let` whose value starts a `repeat`


@row("craps-pass-line", "Craps", LET_REPEAT,
     "a pass-line bet: the come-out roll wins on 7 or 11 and loses on 2, 3 or 12; any "
     "other total is the point, rolled for until it comes again (win) or a 7 (loss)",
     """let c = 2d6 in if c == 7 or c == 11 then 1 else if c <= 3 or c == 12 then 0
        else repeat point = c, r = 0 until r == point or r == 7 do r = 2d6 limit 200
             then r == point""")
def craps_pass_line():
    dice = 2 @ d6

    def pass_line(come_out):
        if come_out in (7, 11):
            return 1
        if come_out in (2, 3, 12):
            return 0
        end = icepool.map(lambda r: r if r in (come_out, 7) else dice, 0, repeat=200)
        return end.map(lambda r: int(r == come_out))

    return dice.map(pass_line)


@row("tenzi", "Tenzi", LET_REPEAT,
     "ten dice: the first roll's most common face is the target, its dice set aside; the "
     "rest are rolled until all ten match: the rolls",
     """let p = 10d6 in let target = p mode in
        repeat left = 10 - p maxset until left == 0
        do left = left - (left)d6 count == target limit 200 then rounds + 1""")
def tenzi():
    matched = d6.pool(10).largest_count()

    def roll(left, rolls):
        if left == 0:
            return left, rolls
        hits = left @ (d6 == 1)  # the target is one face: 1 in 6
        return hits.map(lambda k: (left - k, rolls + 1))

    end = icepool.map(roll, (10 - matched, 1), repeat=200)  # `limit 200`
    return end.map(lambda left, rolls: rolls)


@row("ose-ogre", "Old-School Essentials", LET_REPEAT,
     "a 1st-level fighter (THAC0 19, a sword d8 + 1) against an ogre of 4+1 HD, AC 5, its "
     "hit points rolled (4d8 + 1): rounds to fell it",
     """let hp = 4d8 + 1 in repeat h = hp until h <= 0
        do h = h - (d20 >= 14) * (d8 + 1) limit 200 then rounds""")
def ose_ogre():
    blow = icepool.map(lambda attack, damage: damage + 1 if attack >= 14 else 0, d20, d8)

    def round_(h, rounds):
        if h <= 0:
            return h, rounds
        return blow.map(lambda b: (h - b, rounds + 1))

    end = icepool.map(round_, (4 @ d8 + 1, 0), repeat=200)  # `limit 200`
    return end.map(lambda h, rounds: rounds)


@row("aa-gun-battle", "Axis & Allies", LET_REPEAT,
     "3 fighters attack 3 infantry under an AA gun: the gun fires once first (a die a "
     "fighter, 1 hits), the rest fight to the end (fighters attack 3, infantry defend 2): "
     "units left (negative: the defender's)",
     """let shot = 3d6 count 1 in
        repeat a = 3 - shot, d = 3 until a <= 0 or d <= 0
        do let ha = (a)d6 count <= 3 in let hd = (d)d6 count <= 2 in
           a = max(0, a - hd), d = max(0, d - ha)
        then a - d""")
def aa_gun_battle():
    def round_(a, d):
        if a <= 0 or d <= 0:
            return a, d
        return icepool.map(lambda ha, hd: (max(0, a - hd), max(0, d - ha)),
                           a @ (d6 <= 3), d @ (d6 <= 2))

    def battle(shot):
        return icepool.map(round_, (3 - shot, 3), repeat="inf").map(lambda a, d: a - d)

    return (3 @ (d6 == 1)).map(battle)


@row("ti4-space-cannon", "Twilight Imperium 4e", LET_REPEAT,
     "2 PDS (space cannon 6) fire at 3 incoming cruisers before the space combat, then the "
     "cruisers (combat 7) fight 2 destroyers (combat 9) to the end: ships left (negative: "
     "the destroyers')",
     """let shots = 2d10 count >= 6 in
        repeat c = 3 - shots, d = 2 until c <= 0 or d <= 0
        do let hc = (c)d10 count >= 7 in let hd = (d)d10 count >= 9 in
           c = max(0, c - hd), d = max(0, d - hc)
        then c - d""")
def ti4_space_cannon():
    def round_(c, d):
        if c <= 0 or d <= 0:
            return c, d
        return icepool.map(lambda hc, hd: (max(0, c - hd), max(0, d - hc)),
                           c @ (d10 >= 7), d @ (d10 >= 9))

    def combat(shots):
        return icepool.map(round_, (3 - shots, 2), repeat="inf").map(lambda c, d: c - d)

    return (2 @ (d10 >= 6)).map(combat)


@row("pf2-persistent-fire", "Pathfinder 2e", LET_REPEAT,
     "a strike of d8 + 4 that sets 1d6 persistent fire: it burns at the end of each turn, "
     "then a DC 15 flat check puts it out: the damage in all",
     """let hit = d8 + 4 in repeat total = hit, burning = 1 until burning == 0
        do total = total + d6, burning = d20 < 15 then total""")
def pf2_persistent_fire():
    # The turns it burns (100 at most, as the `repeat`: its default limit), then a d6 each.
    turns = icepool.map_and_time(lambda burning: burning and (d20 < 15), 1, time_limit=100)
    return icepool.map(lambda hit, n: hit + n @ d6, d8 + 4, turns.map(lambda b, n: n))


@row("sr5-initiative-passes", "Shadowrun 5e", LET_REPEAT,
     "Initiative 9 + 2d6: a pass for each 10 the score can lose while above 0: the "
     "passes the character acts in",
     """let init = 9 + 2d6 in repeat s = init, acts = 0 until s <= 0
        do s = s - 10, acts = acts + 1 then acts""")
def sr5_initiative_passes():
    return (9 + 2 @ d6).map(lambda score: -(-score // 10))


@row("eclipse-missiles", "Eclipse", LET_REPEAT,
     "2 Interceptors with flux missiles (2 dice each, hits on 6) attack 3 Interceptors: "
     "the missiles fire once first, then the cannons, the defenders first each round: "
     "ships left (negative: the defender's)",
     """let downed = 4d6 count 6 in
        repeat a = 2, d = max(0, 3 - downed) until a <= 0 or d <= 0
        do let left = max(0, a - (d)d6 count 6) in a = left, d = max(0, d - (left)d6 count 6)
        then a - d""")
def eclipse_missiles():
    def battle(downed):
        # 100 rounds at most, as the `repeat` (its default limit): both sides can miss.
        end = icepool.map(eclipse_round, (2, max(0, 3 - downed)), star=True, repeat=100)
        return end.map(lambda a, d: a - d)

    return (4 @ (d6 == 6)).map(battle)


# ---------------------------------------------------------------------------
# 14. Explosions on several faces or a condition

TORG_CHART = """if t == 1 then -12 else if t == 2 then -10 else if t <= 4 then -8 else if t <= 6 then -5
        else if t <= 8 then -2 else if t <= 10 then -1 else if t <= 12 then 0 else if t <= 14 then 1
        else if t <= 20 then t - 13 else 8 + (t - 21) / 5"""


def torg_bonus(total):
    """Torg's (1990) bonus chart, a die total to its bonus number."""
    chart = {1: -12, 2: -10, 3: -8, 4: -8, 5: -5, 6: -5, 7: -2, 8: -2, 9: -1, 10: -1,
             11: 0, 12: 0, 13: 1, 14: 1, 15: 2, 16: 3, 17: 4, 18: 5, 19: 6, 20: 7}
    return chart[total] if total <= 20 else 8 + (total - 21) // 5


TORG_DIE = d20.explode([10, 20], depth=20)


@row("torg-bonus", "Torg", MULTI,
     "a d20 rerolled and added on every 10 and 20, read on the bonus chart: the bonus "
     "number",
     "let t = d20 explode on 10, 20 in " + TORG_CHART)
def torg_bonus_row():
    return TORG_DIE.map(torg_bonus)


@row("torg-possibility", "Torg", MULTI,
     "a Possibility spent: a second such roll added, below 10 counted as 10; the total on "
     "the bonus chart",
     "let t = (d20 explode on 10, 20) + max(10, (d20 explode on 10, 20)) in " + TORG_CHART)
def torg_possibility():
    return (TORG_DIE + TORG_DIE.map(lambda x: max(10, x))).map(torg_bonus)


@row("torg-eternity-up", "Torg Eternity", MULTI,
     "an Up roll: two d20s, each rerolled and added on 10 and 20, summed (a Mishap, a first "
     "1, rolls no second and reads as 1), on the Eternity bonus chart",
     """let a = d20 explode on 10, 20 in let t = if a == 1 then 1 else a + (d20 explode on 10, 20) in
        if t == 1 then -10 else if t == 2 then -8 else if t <= 4 then -6 else if t <= 6 then -4
        else if t <= 8 then -2 else if t <= 10 then -1 else if t <= 12 then 0 else if t <= 14 then 1
        else if t <= 20 then t - 13 else 8 + (t - 21) / 5""")
def torg_eternity_up():
    chart = [(1, -10), (2, -8), (3, -6), (5, -4), (7, -2), (9, -1), (11, 0), (13, 1), (15, 2),
             (16, 3), (17, 4), (18, 5), (19, 6), (20, 7)]

    def bonus(total):
        if total > 20:
            return 7 + (total - 21) // 5 + 1
        return [b for low, b in chart if low <= total][-1]

    def up(first):
        return 1 if first == 1 else first + TORG_DIE

    return TORG_DIE.map(up).map(bonus)


@row("rolemaster-open-ended", "Rolemaster", MULTI,
     "an open-ended d100: 96-100 rolls again and adds, 01-05 rolls again (itself open-ended "
     "upward) and subtracts",
     "let r = d% explode >= 96 in if r <= 5 then r - (d% explode >= 96) else r")
def rolemaster_open_ended():
    high = icepool.d100.explode([96, 97, 98, 99, 100], depth=20)
    return high.map(lambda r: r - high if r <= 5 else r)


@row("osr-plus-check", "OSR+", MULTI,
     "a check of d6 + 5 against TN 9 with an ability that explodes the die on 5 or 6: a "
     "natural 1 confirmed by snake eyes a critical failure (-1), fail, success, exploded "
     "and succeeding a critical (2)",
     """let r = d6 explode >= 5 in
        if r == 1 and 2d6 == 2 then -1 else if r + 5 >= 9 then 1 + (r >= 5) else 0""")
def osr_plus_check():
    def check(r, confirm):
        if r == 1 and confirm == 2:
            return -1
        return 1 + (r >= 5) if r + 5 >= 9 else 0

    return icepool.map(check, d6.explode([5, 6], depth=20), 2 @ d6)


@row("cofd-8-again", "Chronicles of Darkness", MULTI,
     "7 dice with 8-again: successes on 8+, every 8, 9 or 10 rolled again",
     "7d10 again >= 8 count >= 8")
def cofd_8_again():
    die = d10.map(lambda x: 1 + Again if x >= 8 else 0, again_depth=20)
    return 7 @ die


@row("karukami-action", "Karukami", MULTI,
     "an action roll of 3d6 + 1 with critical 5: every 5 or 6 rolls again and adds; all "
     "three first dice 1s a fumble (0)",
     "let p = 3d6 explode >= 5 in if p count 1 == 3 then 0 else p sum + 1")
def karukami_action():
    die = d6.explode([5, 6], depth=20)
    not_one = die.reroll([1], depth='inf')  # a die that did not show 1
    ones = 3 @ (d6 == 1)
    return ones.map(lambda k: 0 if k == 3 else k + (3 - k) @ not_one + 1)


@row("avandner-hit", "Kokuken no Avandner", MULTI,
     "a hit roll of 6d10 against 4 with critical 2: each die of 2 or less adds a die; "
     "damage 5 a success and a critical trigger of 10 each",
     "let p = 6d10 again <= 2 in 5 * p count <= 4 + 10 * p count <= 2")
def avandner_hit():
    die = d10.map(lambda x: 15 + Again if x <= 2 else 5 if x <= 4 else 0, again_depth=20)
    return 6 @ die

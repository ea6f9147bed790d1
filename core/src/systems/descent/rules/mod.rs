//! `descent`: Descent: Journeys in the Dark (1st edition) attacks
//! (the rules: docs/games/descent.md).
//!
//! Custom-faced dice; an attack misses on any miss face or when its range falls short of
//! the distance; surges buy the weapon's abilities and power-die faces offer +1 damage or
//! +1 range; armour less pierce comes off the damage. Aim and Dodge re-roll a subset of
//! the dice once, chosen by a policy; the `optimal` one is computed exactly over every
//! subset ([`policy`]).
//!
//! Everything after the roll depends only on the dice's summed faces, so a face is packed
//! into one word of byte-wide fields ([`pack`]) that add without carries, and the best
//! use of surges and power-die choices is tabulated once per scenario ([`Resolver`]).

pub mod policy;

use crate::kernels::Rng;
use crate::lazy::Lazy;
use crate::model::{Compiled, Group, Headline, Metric, Trial};
use crate::pmf::{Pmf, Prob, Ratio};
use policy::Chances;
use rand::Rng as _;

/// One face of a custom die.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Face {
    /// An X: one anywhere in the roll and the whole attack misses.
    pub miss: bool,
    /// Range in spaces, 0 to 20, added up over the roll.
    pub range: u8,
    /// Hearts: damage before armour, 0 to 20.
    pub damage: u8,
    /// Lightning bolts, 0 to 20, spent on the weapon's surge abilities.
    pub surge: u8,
    /// A power-die face offering +1 damage or +1 range, chosen after the roll.
    pub choice: bool,
    /// Blocks on a defence die: each cancels 1 damage after armour.
    pub block: u8,
}

impl Face {
    /// Parse a face: space-separated `X` (miss), `R<n>` (range), `<n>H` (damage), `S` or
    /// `<n>S` (surges), `H|R` (+1 damage or +1 range); `blank` or an empty string.
    pub fn parse(text: &str) -> Result<Face, String> {
        let mut f = Face::default();
        let num = |s: &str, tok: &str| -> Result<u8, String> {
            if s.is_empty() {
                return Ok(1);
            }
            s.parse::<u8>()
                .ok()
                .filter(|&n| n <= 20)
                .ok_or_else(|| format!("`{tok}`: expected a number from 0 to 20"))
        };
        for tok in text.split_whitespace() {
            let up = tok.to_ascii_uppercase();
            match up.as_str() {
                "X" => f.miss = true,
                "BLANK" | "-" => {}
                "H|R" | "R|H" | "+1H|+1R" => f.choice = true,
                _ if up.starts_with('R') => f.range += num(&up[1..], tok)?,
                _ if up.ends_with('H') => f.damage += num(&up[..up.len() - 1], tok)?,
                _ if up.ends_with('S') => f.surge += num(&up[..up.len() - 1], tok)?,
                _ if up.ends_with('B') => f.block += num(&up[..up.len() - 1], tok)?,
                _ => {
                    return Err(format!(
                        "unknown token `{tok}`: a face is made of `X` (miss), `R2` (range), `3H` (damage), `S` or `2S` (surges), `H|R` (+1 damage or +1 range), `B` or `2B` (blocks, on a defence die) or `blank`"
                    ))
                }
            }
        }
        Ok(f)
    }

    /// "R1 3H S" style.
    pub fn label(&self) -> String {
        let mut parts = Vec::new();
        if self.miss {
            parts.push("X".to_string());
        }
        if self.range > 0 {
            parts.push(format!("R{}", self.range));
        }
        if self.damage > 0 {
            parts.push(format!("{}H", self.damage));
        }
        match self.surge {
            0 => {}
            1 => parts.push("S".into()),
            n => parts.push(format!("{n}S")),
        }
        if self.choice {
            parts.push("H|R".into());
        }
        match self.block {
            0 => {}
            1 => parts.push("B".into()),
            n => parts.push(format!("{n}B")),
        }
        if parts.is_empty() {
            "blank".into()
        } else {
            parts.join(" ")
        }
    }
}

/// A custom die: its faces, each equally likely.
#[derive(Clone, Debug, PartialEq)]
pub struct Die {
    /// Its ID under `[dice]`, as descriptions name it.
    pub name: String,
    /// 1 to 20 faces.
    pub faces: Vec<Face>,
}

/// What one surge ability buys, for `cost` surges.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SurgeAbility {
    /// Surges spent per use, 1 to 10.
    pub cost: u8,
    /// Damage added per use, 0 to 20.
    pub damage: u8,
    /// Range added per use, in spaces, 0 to 20.
    pub range: u8,
    /// Armour ignored per use, 0 to 20 (pierce beyond the armour is wasted).
    pub pierce: u8,
    /// Usable once per attack (else as often as surges allow).
    pub once: bool,
    /// A counted effect put on the target (Stun, Bleed, ...): an index into the
    /// weapon's `effects`.
    pub effect: Option<u8>,
}

/// What an attack rolls and what its surges buy; a monster's attack is a weapon too.
#[derive(Clone, Debug, PartialEq)]
pub struct Weapon {
    /// The key under `[weapons]`, as scenarios name it.
    pub id: String,
    /// The name reports show (the id unless the config gives one).
    pub name: String,
    /// Its coloured dice, repeats allowed; power dice come on top.
    pub dice: Vec<Die>,
    /// Melee attacks hit adjacent targets only; range does not matter.
    pub melee: bool,
    /// Armour the weapon ignores, 0 to 20.
    pub pierce: u8,
    /// Its surge abilities, in the order the config lists them (the order they are bought).
    pub surges: Vec<SurgeAbility>,
    /// The effects its surge abilities can put on the target, by name.
    pub effects: Vec<String>,
    /// Surges buy effects before damage (after the range the attack needs), else after.
    pub effects_first: bool,
}

impl Weapon {
    /// The most of each effect one attack can buy with `surges` surges.
    fn effect_caps(&self, surges: usize) -> Vec<usize> {
        let mut caps = vec![0; self.effects.len()];
        for a in &self.surges {
            if let Some(e) = a.effect {
                let cost = a.cost.max(1) as usize;
                caps[e as usize] += if a.once {
                    1.min(surges / cost)
                } else {
                    surges / cost
                };
            }
        }
        caps
    }
}

/// The attacker: what it adds to a weapon's roll.
#[derive(Clone, Debug, PartialEq)]
pub struct Hero {
    /// The key under `[heroes]`, as scenarios name it.
    pub id: String,
    /// The name reports show (the id unless the config gives one).
    pub name: String,
    /// Power dice added to each attack, 0 to 5 (bought with fatigue or given by skills).
    pub power_dice: u8,
}

/// The target of an attack (a hero as a target is written as a monster too).
#[derive(Clone, Debug, PartialEq)]
pub struct Monster {
    /// The key under `[monsters]`, as scenarios name it.
    pub id: String,
    /// The name reports show (the id unless the config gives one).
    pub name: String,
    /// Taken off each hit's damage, 0 to 20, less the attack's pierce.
    pub armour: u8,
    /// Wounds at full health, 1 to 100: a kill is damage reaching them.
    pub wounds: u8,
    /// Defence dice rolled after the attack: their blocks cancel damage.
    pub defence: Vec<Die>,
    /// Iron Shield: re-roll, once, every defence die showing fewer blocks than its
    /// average.
    pub iron_shield: bool,
}

impl Monster {
    /// ", defence grey + grey, Iron Shield" or "".
    pub fn defence_text(&self) -> String {
        if self.defence.is_empty() {
            return String::new();
        }
        let names: Vec<&str> = self.defence.iter().map(|d| d.name.as_str()).collect();
        format!(
            ", defence {}{}",
            names.join(" + "),
            if self.iron_shield {
                ", Iron Shield"
            } else {
                ""
            }
        )
    }

    /// The distribution of the total blocks the defence dice give (Iron Shield
    /// included): `[1.0]` without defence dice.
    pub fn blocks<W: Prob>(&self) -> Vec<W> {
        self.defence
            .iter()
            .fold(Pmf::point(0), |total, d| {
                total.convolve(&Pmf(die_blocks(d, self.iron_shield)))
            })
            .0
    }
}

/// One defence die's blocks, after the Iron Shield's re-roll when it has one.
fn die_blocks<W: Prob>(d: &Die, iron_shield: bool) -> Vec<W> {
    let sides = d.faces.len() as u64;
    let n = d.faces.len() as f64;
    let most = d.faces.iter().map(|f| f.block as usize).max().unwrap_or(0);
    let mut plain = vec![W::zero(); most + 1];
    for f in &d.faces {
        plain[f.block as usize] += W::ratio(1, sides);
    }
    if !iron_shield {
        return plain;
    }
    let mean: f64 = d.faces.iter().map(|f| f.block as f64).sum::<f64>() / n;
    let mut out = vec![W::zero(); most + 1];
    for f in &d.faces {
        if (f.block as f64) < mean {
            for (b, p) in plain.iter().enumerate() {
                out[b] += p.clone().over(sides);
            }
        } else {
            out[f.block as usize] += W::ratio(1, sides);
        }
    }
    out
}

/// Defence dice for the sampler: blocks per face, and whether the Iron Shield re-rolls
/// the face.
#[derive(Clone, Debug, Hash)]
struct Defence {
    dice: Vec<(Vec<u8>, Vec<bool>)>,
}

impl Defence {
    fn new(m: &Monster) -> Option<Self> {
        (!m.defence.is_empty()).then(|| Defence {
            dice: m
                .defence
                .iter()
                .map(|d| {
                    let blocks: Vec<u8> = d.faces.iter().map(|f| f.block).collect();
                    let mean = blocks.iter().map(|&b| b as f64).sum::<f64>() / blocks.len() as f64;
                    let reroll = blocks
                        .iter()
                        .map(|&b| m.iron_shield && (b as f64) < mean)
                        .collect();
                    (blocks, reroll)
                })
                .collect(),
        })
    }

    /// Roll every defence die (and the Iron Shield's re-rolls): the total blocks.
    #[inline]
    fn roll(&self, rng: &mut Rng) -> usize {
        let mut total = 0;
        for (blocks, reroll) in &self.dice {
            let n = blocks.len() as u32;
            let mut f = crate::kernels::roll_die(rng, n) as usize - 1;
            if reroll[f] {
                f = crate::kernels::roll_die(rng, n) as usize - 1;
            }
            total += blocks[f] as usize;
        }
        total
    }
}

/// An attack's exact distribution after the target's defence dice: a hit for k damage
/// becomes a hit for max(0, k - blocks), its effects kept.
fn defended<W: Prob>(res: &Resolver, exact: &[W], blocks: &[W]) -> Vec<W> {
    let mut out = vec![W::zero(); exact.len()];
    out[..2.min(exact.len())].clone_from_slice(&exact[..2.min(exact.len())]);
    for (s, p) in exact.iter().enumerate().skip(2) {
        for (b, q) in blocks.iter().enumerate() {
            out[res.with_damage(s, res.damage(s).saturating_sub(b))] += p.clone() * q.clone();
        }
    }
    out
}

/// Which dice an Aim or a Dodge re-rolls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    /// Re-roll nothing: the order is placed but not used.
    KeepAll,
    /// Aim: re-roll the dice showing a miss. Dodge: unless the attack already misses,
    /// make the attacker re-roll his best dice: every die showing more damage than its
    /// average face.
    MissesOnly,
    /// The subset that maximises (Aim) or minimises (Dodge) the objective's expectation.
    Optimal,
}

impl Policy {
    /// The config spellings, in variant order (`"none"` is read as no order).
    pub const NAMES: &'static [&'static str] = &["keep_all", "misses_only", "optimal"];

    /// The policy a config names; `None` for any other name.
    pub fn from_name(s: &str) -> Option<Self> {
        Some(match s {
            "keep_all" => Policy::KeepAll,
            "misses_only" => Policy::MissesOnly,
            "optimal" => Policy::Optimal,
            _ => return None,
        })
    }

    /// The config spelling, `"keep_all"` for [`Policy::KeepAll`].
    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }
}

/// What the optimal policy optimises.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Objective {
    /// Expected damage.
    Damage,
    /// P(damage >= the target's remaining wounds).
    Kill,
}

/// The re-roll of an attack: by whom and how.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reroll {
    /// No re-roll: no order, or an Aim and a Dodge that cancel.
    None,
    /// The attacker's Aim re-rolls to raise the objective.
    Aim(Policy),
    /// The target's Dodge makes the attacker re-roll to lower it.
    Dodge(Policy),
}

/// One attack as a scenario.
#[derive(Clone, Debug, PartialEq)]
pub struct Attack {
    /// The attacker (its name; its power dice are the default for `power_dice`).
    pub hero: Hero,
    /// What the attack rolls and what its surges buy.
    pub weapon: Weapon,
    /// The die a power die is (`[rules] power_die`, the black die by default).
    pub power_die: Die,
    /// Power dice this attack adds, 0 to 5.
    pub power_dice: u8,
    /// The target: armour, defence dice, name.
    pub target: Monster,
    /// Remaining wounds the kill is judged against.
    pub wounds: u8,
    /// Spaces to the target, 1 to 30 (1 = adjacent; a melee attack is always 1).
    pub distance: u8,
    /// The attacker's Aim order and how it re-rolls; `None`: no Aim.
    pub aim: Option<Policy>,
    /// The target's Dodge order and what it makes the attacker re-roll; `None`: no Dodge.
    pub dodge: Option<Policy>,
    /// What an `optimal` re-roll aims for.
    pub objective: Objective,
    /// Set when the attack is one point of a profile (distance or power dice).
    pub group: Option<Group>,
}

impl Attack {
    /// Aim and Dodge on the same attack cancel.
    pub fn reroll(&self) -> Reroll {
        match (self.aim, self.dodge) {
            (Some(p), None) => Reroll::Aim(p),
            (None, Some(p)) => Reroll::Dodge(p),
            _ => Reroll::None,
        }
    }

    /// The weapon's dice, then the power dice.
    pub fn dice(&self) -> Vec<Die> {
        let mut d = self.weapon.dice.clone();
        d.extend((0..self.power_dice).map(|_| self.power_die.clone()));
        d
    }
}

/// A face as byte-wide fields of one word: miss, range, damage, surge, choice. Sums of
/// up to 255 per field add without carries.
pub fn pack(f: &Face) -> u64 {
    f.miss as u64
        | (f.range as u64) << 8
        | (f.damage as u64) << 16
        | (f.surge as u64) << 24
        | (f.choice as u64) << 32
}

#[inline(always)]
fn field(x: u64, i: u32) -> usize {
    ((x >> (8 * i)) & 0xff) as usize
}

/// Outcome states: 0 = a miss face, 1 = out of range, 2 + k = a hit for k damage.
pub const MISS: usize = 0;
/// The state of an attack whose range falls short of the distance (see [`MISS`]).
pub const OUT_OF_RANGE: usize = 1;

/// The best use of surges and power-die choices for every summed roll, tabulated.
///
/// A hit's state is `2 + damage + stride * e`, `e` numbering the counts of the weapon's
/// effects (0 when it has none), so without effects the state is 2 + damage.
#[derive(Clone, Debug, Hash)]
pub struct Resolver {
    /// Range counts up to the distance (more does not help); 0 for melee.
    rcap: usize,
    scap: usize,
    ccap: usize,
    dcap: usize,
    /// State for (range, surge, choice, damage), ranges and surges capped.
    table: Vec<u16>,
    /// How many outcome states there are: miss, out of range, then every hit.
    pub states: usize,
    /// Damage values a hit can show (the most damage + 1).
    pub stride: usize,
    /// Per effect: the most one attack can put on the target, + 1.
    pub effect_radix: Vec<usize>,
    /// Per state, its damage: a lookup where the sampler would divide.
    damages: Vec<u16>,
}

impl Resolver {
    /// Tabulate the best use of surges and choices for every roll `a` can sum to.
    pub fn new(a: &Attack) -> Self {
        let dice = a.dice();
        let max = |f: fn(&Face) -> u8| -> usize {
            dice.iter()
                .map(|d| d.faces.iter().map(|x| f(x) as usize).max().unwrap_or(0))
                .sum()
        };
        let rcap = if a.weapon.melee {
            0
        } else {
            a.distance as usize
        };
        let (scap, ccap, dcap) = (max(|f| f.surge), max(|f| f.choice as u8), max(|f| f.damage));
        let armour = a.target.armour.saturating_sub(a.weapon.pierce) as i32;
        let effect_radix: Vec<usize> = a
            .weapon
            .effect_caps(scap)
            .into_iter()
            .map(|c| c + 1)
            .collect();
        let mut best = vec![None; (rcap + 1) * (scap + 1) * (ccap + 1)];
        let mut top = 0i32;
        for r in 0..=rcap {
            for s in 0..=scap {
                for c in 0..=ccap {
                    let g = best_use(&a.weapon, r, s, c, rcap, armour);
                    if let Some((g, _)) = &g {
                        top = top.max(*g);
                    }
                    best[(r * (scap + 1) + s) * (ccap + 1) + c] = g;
                }
            }
        }
        let most = (dcap as i32 + top - armour).max(0) as usize;
        let stride = most + 1;
        let effect_index = |counts: &[usize]| {
            counts
                .iter()
                .zip(&effect_radix)
                .fold(0, |acc, (&c, &r)| acc * r + c.min(r - 1))
        };
        let mut table = vec![0u16; best.len() * (dcap + 1)];
        for (i, g) in best.iter().enumerate() {
            for d in 0..=dcap {
                table[i * (dcap + 1) + d] = match g {
                    None => OUT_OF_RANGE as u16,
                    Some((g, e)) => {
                        (2 + (d as i32 + g - armour).max(0) as usize + stride * effect_index(e))
                            as u16
                    }
                };
            }
        }
        let states = 2 + stride * effect_radix.iter().product::<usize>();
        Resolver {
            rcap,
            scap,
            ccap,
            dcap,
            table,
            states,
            stride,
            effect_radix,
            // A miss (0) or out of range (1) does no damage; a hit's is its state's
            // place within its row of `stride` damage values.
            damages: (0..states)
                .map(|s| s.checked_sub(2).map_or(0, |h| (h % stride) as u16))
                .collect(),
        }
    }

    /// The state of a summed roll.
    #[inline(always)]
    pub fn state(&self, sum: u64) -> usize {
        if field(sum, 0) > 0 {
            return MISS;
        }
        let r = field(sum, 1).min(self.rcap);
        let d = field(sum, 2);
        let s = field(sum, 3).min(self.scap);
        let c = field(sum, 4);
        debug_assert!(d <= self.dcap && c <= self.ccap);
        self.table[((r * (self.scap + 1) + s) * (self.ccap + 1) + c) * (self.dcap + 1) + d] as usize
    }

    /// The damage of a state (0 for a miss or out of range).
    #[inline(always)]
    pub fn damage(&self, state: usize) -> usize {
        self.damages[state] as usize
    }

    /// The count of effect `k` a state put on the target.
    pub fn effect(&self, state: usize, k: usize) -> usize {
        if state < 2 {
            return 0;
        }
        let mut e = (state - 2) / self.stride;
        for r in self.effect_radix.iter().skip(k + 1).rev() {
            e /= r;
        }
        e % self.effect_radix[k]
    }

    /// A hit state with its damage replaced (the effects kept).
    #[inline(always)]
    pub fn with_damage(&self, state: usize, damage: usize) -> usize {
        debug_assert!(state >= 2);
        state - self.damage(state) + damage
    }

    /// A summed roll with range and surges capped, so that equal outcomes compare equal.
    pub fn canonical(&self, sum: u64) -> u64 {
        if field(sum, 0) > 0 {
            return 1;
        }
        let r = field(sum, 1).min(self.rcap) as u64;
        let s = field(sum, 3).min(self.scap) as u64;
        (sum & !(0xff << 8) & !(0xff << 24)) | r << 8 | s << 24
    }
}

/// What [`best_use`] does with each way to spend the surges: (range, damage, pierce
/// bought, effects bought).
type Visit<'a> = dyn FnMut(usize, i32, i32, &[usize]) + 'a;

/// The best use of `surges` surges and `choices` power-die choices while the range
/// reaches `need` (from `range` rolled): the "damage equivalent" gained (extra damage
/// plus the armour that pierce removes, at most `armour`) and the count of each effect
/// bought. Effects come before damage when the weapon says so, else after, each in the
/// order the weapon lists them; the range the attack needs always comes first. `None`
/// if the range cannot be reached.
fn best_use(
    w: &Weapon,
    range: usize,
    surges: usize,
    choices: usize,
    need: usize,
    armour: i32,
) -> Option<(i32, Vec<usize>)> {
    let mut best: Option<(i32, Vec<usize>)> = None;
    // Every way to use the abilities: counts per ability within the surges.
    fn walk(
        w: &Weapon,
        i: usize,
        left: usize,
        acc: (usize, i32, i32),
        effects: &mut Vec<usize>,
        out: &mut Visit,
    ) {
        if i == w.surges.len() {
            out(acc.0, acc.1, acc.2, effects);
            return;
        }
        let a = &w.surges[i];
        let cost = a.cost.max(1) as usize;
        let most = if a.once { 1 } else { left / cost };
        for k in 0..=most.min(left / cost) {
            if let Some(e) = a.effect {
                effects[e as usize] += k;
            }
            walk(
                w,
                i + 1,
                left - k * cost,
                (
                    acc.0 + k * a.range as usize,
                    acc.1 + (k * a.damage as usize) as i32,
                    acc.2 + (k * a.pierce as usize) as i32,
                ),
                effects,
                out,
            );
            if let Some(e) = a.effect {
                effects[e as usize] -= k;
            }
        }
    }
    let mut effects = vec![0; w.effects.len()];
    walk(
        w,
        0,
        surges,
        (0, 0, 0),
        &mut effects,
        &mut |sr, sd, sp, e| {
            // Power-die choices go to range first, just enough, then to damage.
            let short = need.saturating_sub(range + sr);
            if short > choices {
                return;
            }
            let g = sd + (choices - short) as i32 + sp.min(armour);
            // Effects in the order the weapon lists them: the first as often as it can.
            let better = match &best {
                None => true,
                Some((bg, be)) => {
                    if w.effects_first {
                        (e, g) > (be.as_slice(), *bg)
                    } else {
                        (g, e) > (*bg, be.as_slice())
                    }
                }
            };
            if better {
                best = Some((g, e.to_vec()));
            }
        },
    );
    best
}

/// An effect's metric name: "Knock back" -> "knock_back".
pub fn effect_key(name: &str) -> String {
    name.trim()
        .to_lowercase()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

/// Sample an attack: roll, re-roll by the precomputed policy, resolve.
#[derive(Hash)]
pub struct AttackTrial {
    /// Packed faces of each die, indexed die * faces + face.
    faces: Vec<u64>,
    sides: u64,
    dice: usize,
    /// What each initial roll re-rolls, as the policy chose it.
    rerolls: policy::Rerolls,
    resolver: Resolver,
    /// `sides^i` (wrapping) for each die `i`: what brings its re-roll digit to the top.
    scales: [u64; MAX_ATTACK_DICE],
    /// 2^64 mod sides^(2 * dice): one word gives the roll and any re-rolls.
    reject: u64,
    pow: u64,
    /// `sides^dice`: the initial rolls.
    rolls: u64,
    /// The tables per initial roll, made from the fields above at the first trial.
    lookups: Lazy<Lookups>,
    /// The target's defence dice, rolled after a hit.
    defence: Option<Defence>,
}

/// An attack's tables per initial roll (numbered as faces in base `sides`, first die
/// most significant).
struct Lookups {
    /// The re-roll mask of each roll (bit `i`: die `i` re-rolled); empty when nothing
    /// is re-rolled.
    policy: Vec<u16>,
    /// The packed sum of the dice the policy keeps, when there are at most 6^5 rolls:
    /// one lookup instead of a die-by-die sum; else empty.
    kept: Vec<u64>,
    /// Without a re-roll, each roll's state itself (the resolver read once per roll,
    /// not once per trial); else empty.
    settled: Vec<u32>,
}

impl AttackTrial {
    /// The tables, made at the first trial (every thread waits for the one making them).
    #[inline(always)]
    fn lookups(&self) -> &Lookups {
        self.lookups.get_or_init(|| {
            let policy = self.rerolls.masks();
            let n = self.sides as usize;
            let kept: Vec<u64> = if self.rolls <= 7776 {
                (0..self.rolls as usize)
                    .map(|idx| {
                        let mask = policy.get(idx).copied().unwrap_or(0);
                        let mut sum = 0u64;
                        let mut x = idx;
                        // The last die is the least significant digit.
                        for i in (0..self.dice).rev() {
                            let s = x % n;
                            x /= n;
                            if mask >> i & 1 == 0 {
                                sum += self.faces[i * n + s];
                            }
                        }
                        sum
                    })
                    .collect()
            } else {
                Vec::new()
            };
            let settled = if policy.is_empty() {
                kept.iter()
                    .map(|&sum| self.resolver.state(sum) as u32)
                    .collect()
            } else {
                Vec::new()
            };
            Lookups {
                policy,
                kept,
                settled,
            }
        })
    }
}

impl Trial for AttackTrial {
    fn states(&self) -> usize {
        self.resolver.states
    }
    fn key(&self) -> Option<Vec<u8>> {
        Some(crate::model::key_of::<Self, _>(self))
    }
    #[inline(always)]
    fn sample(&self, rng: &mut Rng) -> usize {
        self.sample_in(self.lookups(), rng)
    }
    /// The default loop, with the tables looked up once a chunk rather than once a
    /// trial (their first-use check is an atomic read the compiler cannot hoist).
    #[inline(always)]
    fn run_chunk(
        &self,
        rng: &mut Rng,
        trials: u64,
        hist: &mut [u64],
        _stop: &crate::cancel::Cancel,
    ) {
        let t = self.lookups();
        let mut local = rng.clone();
        for _ in 0..trials {
            hist[self.sample_in(t, &mut local)] += 1;
        }
        *rng = local;
    }
}

impl AttackTrial {
    // Inlined into the engine's chunk loop, so that the generator's state stays in
    // registers across trials instead of going through memory on every call.
    #[inline(always)]
    fn sample_in(&self, t: &Lookups, rng: &mut Rng) -> usize {
        let mut r = loop {
            let r = rng.next_u64();
            if r.wrapping_mul(self.pow) >= self.reject {
                break r;
            }
        };
        let mut digit = || {
            let m = r as u128 * self.sides as u128;
            r = m as u64;
            (m >> 64) as usize
        };
        let n = self.sides as usize;
        if !t.kept.is_empty() {
            // The whole first roll as one number, its kept dice summed by a lookup;
            // then every die a re-roll digit, counted where the policy re-rolls it
            // (the packed sums are exact modulo 2^64).
            let m = r as u128 * self.rolls as u128;
            r = m as u64;
            let idx = (m >> 64) as usize;
            if let Some(&state) = t.settled.get(idx) {
                return self.defend(state as usize, rng);
            }
            let mut sum = t.kept[idx];
            if !t.policy.is_empty() {
                // Re-roll digit `i` is the top digit of `r * sides^i`: each die read on
                // its own, none waiting on the multiplication of the one before.
                let mask = t.policy[idx];
                for (i, &scale) in self.scales[..self.dice].iter().enumerate() {
                    let d = (r.wrapping_mul(scale) as u128 * self.sides as u128) >> 64;
                    let keep = ((mask >> i & 1) as u64).wrapping_neg();
                    sum = sum.wrapping_add(self.faces[i * n + d as usize] & keep);
                }
            }
            return self.defend(self.resolver.state(sum), rng);
        }
        let mut shown = [0usize; 8];
        let mut idx = 0usize;
        let mut sum = 0u64;
        for (i, s) in shown.iter_mut().enumerate().take(self.dice) {
            *s = digit();
            idx = idx * n + *s;
            sum += self.faces[i * n + *s];
        }
        if !t.policy.is_empty() {
            // Every die gets a re-roll digit and the policy's mask picks which count, so
            // nothing branches on the dice. The word holds 2 * dice digits; a re-roll
            // not taken is never read into the sum. The packed sums are exact modulo
            // 2^64, so taking a face off and putting one on wraps back to the true sum.
            let mask = t.policy[idx];
            for (i, &s) in shown.iter().enumerate().take(self.dice) {
                let change = self.faces[i * n + digit()].wrapping_sub(self.faces[i * n + s]);
                let keep = ((mask >> i & 1) as u64).wrapping_neg();
                sum = sum.wrapping_add(change & keep);
            }
        }
        self.defend(self.resolver.state(sum), rng)
    }
}

impl AttackTrial {
    /// The target's defence dice against a hit.
    #[inline(always)]
    fn defend(&self, state: usize, rng: &mut Rng) -> usize {
        match &self.defence {
            Some(d) if state >= 2 => {
                let r = &self.resolver;
                r.with_damage(state, r.damage(state).saturating_sub(d.roll(rng)))
            }
            _ => state,
        }
    }
}

/// Dice an attack may roll in all (weapon and power dice): keeps the policy table at
/// most 6^8 entries.
pub const MAX_ATTACK_DICE: usize = 8;

/// What an attack is, in a line: cheap (no policy table, no exact distribution), for
/// `rollsim list`.
pub fn describe(a: &Attack) -> String {
    let orders = match a.reroll() {
        Reroll::None if a.aim.is_some() => "Aim and Dodge cancel".to_string(),
        Reroll::None => "no re-roll".to_string(),
        Reroll::Aim(p) => format!("Aim ({})", p.name()),
        Reroll::Dodge(p) => format!("Dodge ({})", p.name()),
    };
    let power = if a.power_dice > 0 {
        format!(" + {} power", a.power_dice)
    } else {
        String::new()
    };
    let pierce = if a.weapon.pierce > 0 {
        format!(", pierce {}", a.weapon.pierce)
    } else {
        String::new()
    };
    format!(
        "{} with {} at {} (armour {}, {}{}), distance {}: {orders}",
        a.hero.name,
        weapon_text(&a.weapon, &format!("{power}{pierce}")),
        a.target.name,
        a.target.armour,
        crate::text::plural(a.wounds, "wound", "wounds"),
        a.target.defence_text(),
        a.distance,
    )
}

/// A weapon and its dice, `Crossbow (blue + yellow + 1 power)`; a weapon whose name
/// already says its dice (`Bare hands (red die)`) is not told twice.
fn weapon_text(w: &Weapon, extra: &str) -> String {
    let dice: Vec<&str> = w.dice.iter().map(|d| d.name.as_str()).collect();
    let named = dice
        .iter()
        .all(|d| w.name.to_lowercase().contains(&d.to_lowercase()));
    match (
        named,
        extra.trim_start_matches(", ").trim_start_matches(" + "),
    ) {
        (true, "") => w.name.clone(),
        (true, rest) => format!("{} ({rest})", w.name),
        (false, _) => format!("{} ({}{extra})", w.name, dice.join(" + ")),
    }
}

/// An attack's sampler and its exact distribution over the sampler's states.
fn sampler(a: &Attack) -> (AttackTrial, Vec<f64>, Chances) {
    let dice = a.dice();
    let resolver = Resolver::new(a);
    let plan = policy::plan(a, &resolver);
    let sides = dice[0].faces.len() as u64;
    let pow = sides.pow(2 * dice.len() as u32);
    let faces: Vec<u64> = dice.iter().flat_map(|d| d.faces.iter().map(pack)).collect();
    let exact = defended(&resolver, &plan.exact, &a.target.blocks());
    (
        AttackTrial {
            faces,
            sides,
            dice: dice.len(),
            rerolls: plan.rerolls,
            resolver,
            scales: std::array::from_fn(|i| sides.wrapping_pow(i as u32)),
            reject: pow.wrapping_neg() % pow,
            pow,
            rolls: sides.pow(dice.len() as u32),
            lookups: Lazy::default(),
            defence: Defence::new(&a.target),
        },
        exact,
        plan.chances,
    )
}

/// An attack's exact distribution after the target's defence dice, in weight `W`.
fn attack_exact<W: Prob>(a: &Attack, chances: &Chances) -> Vec<W> {
    let res = Resolver::new(a);
    let exact = chances.exact_in::<W>(&res, &mut Default::default());
    defended(&res, &exact, &a.target.blocks())
}

/// Several attacks on one target in one turn: each rolled as its own attack (its Aim,
/// the target's Dodge that lasts for all of them), the wounds added up. A Guard order
/// first makes the target's interrupt attack on the first attacker: killed, it does not
/// attack. State: damage + `dmg_states` x (the Guard killed the first attacker).
struct TurnTrial {
    attacks: Vec<AttackTrial>,
    /// The interrupt attack and the wounds that kill its target.
    guard: Option<(AttackTrial, usize)>,
}

impl TurnTrial {
    /// Total damage: each attack's states less miss and out of range.
    fn dmg_states(&self) -> usize {
        1 + self
            .attacks
            .iter()
            .map(|a| a.resolver.stride - 1)
            .sum::<usize>()
    }
}

impl Trial for TurnTrial {
    fn states(&self) -> usize {
        self.dmg_states() * if self.guard.is_some() { 2 } else { 1 }
    }
    #[inline(always)]
    fn sample(&self, rng: &mut Rng) -> usize {
        let killed = self
            .guard
            .as_ref()
            .is_some_and(|(g, w)| g.resolver.damage(g.sample(rng)) >= *w && *w > 0);
        let dmg: usize = self
            .attacks
            .iter()
            .skip(killed as usize)
            .map(|a| a.resolver.damage(a.sample(rng)))
            .sum();
        dmg + killed as usize * self.dmg_states()
    }
}

/// The damage distribution of attacks, convolved.
fn convolve_damage<W: Prob>(built: &[(&Resolver, Vec<W>)]) -> Vec<W> {
    let mut total = Pmf::point(0);
    for (res, e) in built {
        let mut d = vec![W::zero(); res.stride];
        for (s, p) in e.iter().enumerate() {
            d[res.damage(s)] += p.clone();
        }
        total = total.convolve(&Pmf(d));
    }
    total.0
}

/// A turn's damage (and whether a Guard killed the first attacker), in weight `W`:
/// the attacks' damage convolved, or with a Guard, its kill first.
fn turn_exact<W: Prob>(
    built: &[(&Resolver, Vec<W>)],
    guard: Option<(&Resolver, Vec<W>, usize)>,
    dmg_states: usize,
) -> Vec<W> {
    let all = convolve_damage(built);
    let mut total = vec![W::zero(); dmg_states * if guard.is_some() { 2 } else { 1 }];
    match guard {
        Some((gres, ge, w)) => {
            let mut p_kill = W::zero();
            for (s, p) in ge.into_iter().enumerate() {
                if s >= 2 && gres.damage(s) >= w {
                    p_kill += p;
                }
            }
            let rest = convolve_damage(&built[1..]);
            for (d, p) in all.into_iter().enumerate() {
                total[d] += (W::one() - p_kill.clone()) * p;
            }
            for (d, p) in rest.into_iter().enumerate() {
                total[dmg_states + d] += p_kill.clone() * p;
            }
        }
        None => {
            for (d, p) in all.into_iter().enumerate() {
                total[d] = p;
            }
        }
    }
    total
}

/// An overlord turn: `attacks` on the same target, the wounds added up. `attacks[0]`
/// carries the Aim (an Aim is spent on one attack); the Dodge order is on every attack
/// (it lasts until the hero's next turn). `guard`: the target's Guard order, an
/// interrupt attack on the first attacker before it attacks (the rules: the order is
/// lost once the hero is wounded, so it is used before the first attack).
pub fn compile_turn(
    name: &str,
    attacks: &[Attack],
    wounds: u8,
    guard: Option<&Attack>,
) -> Compiled {
    let built: Vec<(AttackTrial, Vec<f64>, Chances)> = attacks.iter().map(sampler).collect();
    let guard_built = guard.map(sampler);
    let dmg_states = 1 + built
        .iter()
        .map(|(a, _, _)| a.resolver.stride - 1)
        .sum::<usize>();
    let floats: Vec<(&Resolver, Vec<f64>)> = built
        .iter()
        .map(|(t, e, _)| (&t.resolver, e.clone()))
        .collect();
    let wounds_of = guard.map_or(0, |g| g.wounds as usize);
    let total = turn_exact(
        &floats,
        guard_built
            .as_ref()
            .map(|(t, e, _)| (&t.resolver, e.clone(), wounds_of)),
        dmg_states,
    );
    // For the fractions: each attack (and the Guard's) with its chances, worked again
    // in whole numbers when asked for.
    let later: Vec<(Attack, Chances)> = attacks
        .iter()
        .zip(&built)
        .map(|(a, (_, _, c))| (a.clone(), c.clone()))
        .collect();
    let later_guard: Option<(Attack, Chances)> = guard
        .zip(guard_built.as_ref())
        .map(|(g, (_, _, c))| (g.clone(), c.clone()));
    let trial = TurnTrial {
        attacks: built.into_iter().map(|(t, _, _)| t).collect(),
        guard: guard_built.map(|(t, _, _)| (t, wounds_of)),
    };
    let states = trial.states();
    let a = &attacks[0];
    let metrics = turn_metrics(attacks, wounds, guard, dmg_states, states);
    Compiled::new(
        name,
        turn_description(attacks, wounds, guard),
        Box::new(trial),
        metrics,
        Headline {
            label: format!("P({} dies)", a.target.name),
            metric: 1,
            values: vec![1],
            against: Vec::new(),
        },
    )
    .exact(Some(total))
    .fractions_later(move || {
        let resolvers: Vec<Resolver> = later.iter().map(|(a, _)| Resolver::new(a)).collect();
        let exact: Vec<(&Resolver, Vec<Ratio>)> = later
            .iter()
            .zip(&resolvers)
            .map(|((a, c), r)| (r, attack_exact(a, c)))
            .collect();
        let guard_res = later_guard.as_ref().map(|(g, _)| Resolver::new(g));
        let guard = later_guard
            .as_ref()
            .zip(guard_res.as_ref())
            .map(|((g, c), r)| (r, attack_exact(g, c), wounds_of));
        turn_exact(&exact, guard, dmg_states)
    })
    .group(a.group.clone())
}

/// A turn's metrics over its states: the damage dealt, whether the target dies, and
/// (with a Guard) whether the attacker is killed first.
fn turn_metrics(
    attacks: &[Attack],
    wounds: u8,
    guard: Option<&Attack>,
    dmg_states: usize,
    states: usize,
) -> Vec<Metric> {
    let a = &attacks[0];
    let w = wounds as usize;
    let mut metrics = vec![
        Metric::numeric(
            "damage",
            &format!(
                "wounds dealt by the {} attacks in all, after armour {}",
                attacks.len(),
                a.target.armour
            ),
            dmg_states,
            (0..states).map(|s| (s % dmg_states) as u16).collect(),
        ),
        Metric::categorical(
            "fate",
            &format!("dies = the attacks deal at least the {wounds} remaining wounds"),
            &["survives", "dies"],
            (0..states).map(|s| (s % dmg_states >= w) as u16).collect(),
        ),
    ];
    if let Some(g) = guard {
        metrics.push(Metric::categorical(
            "guard",
            &format!(
                "{}'s interrupt attack with {} kills the first {} ({}, armour {}) before it attacks",
                g.hero.name,
                g.weapon.name,
                g.target.name,
                crate::text::plural(g.wounds, "wound", "wounds"),
                g.target.armour
            ),
            &["attacker survives", "attacker killed"],
            (0..states).map(|s| (s >= dmg_states) as u16).collect(),
        ));
    }
    metrics
}

/// "3 attacks with ... at ... (armour ..., ...), distance ...: Dodge ..., Aim ...".
fn turn_description(attacks: &[Attack], wounds: u8, guard: Option<&Attack>) -> String {
    let a = &attacks[0];
    // Power dice: one count when every attack rolls the same, else each attack's.
    let power = if attacks.iter().all(|x| x.power_dice == a.power_dice) {
        if a.power_dice > 0 {
            format!(" + {} power", a.power_dice)
        } else {
            String::new()
        }
    } else {
        let each: Vec<String> = attacks.iter().map(|x| x.power_dice.to_string()).collect();
        format!(" + {} power dice", each.join(" / "))
    };
    let dodge = a.dodge.map_or("no Dodge".to_string(), |p| {
        format!("Dodge ({}) on every attack", p.name())
    });
    let aim = a.aim.map_or(String::new(), |p| {
        format!(", Aim ({}) on the first", p.name())
    });
    format!(
        "{} with {} at {} (armour {}, {}{}), distance {}: {dodge}{aim}{}",
        crate::text::plural(attacks.len() as u64, "attack", "attacks"),
        weapon_text(&a.weapon, &power),
        a.target.name,
        a.target.armour,
        crate::text::plural(wounds as u64, "wound", "wounds"),
        a.target.defence_text(),
        a.distance,
        guard.map_or(String::new(), |g| format!(
            "; {} on Guard first attacks with {}",
            g.hero.name, g.weapon.name
        ))
    )
}

/// An `attack` scenario, or one point of a `profile`: result, damage, kill, effects.
pub fn compile(name: &str, a: &Attack) -> Compiled {
    let (trial, exact, chances) = sampler(a);
    let later = a.clone();
    let states = trial.resolver.states;
    let res = trial.resolver.clone();
    let dmg = |s: usize| res.damage(s);
    let wounds = a.wounds as usize;
    let mut metrics = vec![
        Metric::categorical(
            "result",
            "miss = a miss face; out of range = range plus range surges and choices short of the distance",
            &["miss", "out of range", "hit"],
            (0..states).map(|s| s.min(2) as u16).collect(),
        ),
        Metric::numeric(
            "damage",
            &format!(
                "wounds dealt after armour {} - pierce {}{} (0 on a miss)",
                a.target.armour,
                a.weapon.pierce,
                if a.target.defence.is_empty() { "" } else { " and the defence dice's blocks" }
            ),
            res.stride,
            (0..states).map(|s| dmg(s) as u16).collect(),
        ),
        Metric::categorical(
            "kill",
            &format!("killed = damage at least the {} remaining wounds", a.wounds),
            &["survives", "killed"],
            (0..states).map(|s| (dmg(s) >= wounds && s >= 2) as u16).collect(),
        ),
    ];
    for (k, e) in a.weapon.effects.iter().enumerate() {
        metrics.push(Metric::numeric(
            &effect_key(e),
            &format!(
                "{e} effects put on the target (surges buy them {} damage, after the range)",
                if a.weapon.effects_first {
                    "before"
                } else {
                    "after"
                }
            ),
            res.effect_radix[k],
            (0..states).map(|s| res.effect(s, k) as u16).collect(),
        ));
    }
    let description = describe(a);
    // P(kill) says nothing when no roll can kill (an ogre's wounds are out of reach): the
    // headline is then the weapon's first effect, else any wound at all.
    let most = (2..states).map(dmg).max().unwrap_or(0);
    let headline = if most >= wounds {
        Headline {
            label: "P(kill)".into(),
            metric: 2,
            values: vec![1],
            against: Vec::new(),
        }
    } else if let Some(e) = a.weapon.effects.first() {
        Headline {
            label: format!("P({})", e.trim().to_lowercase()),
            metric: 3,
            values: (1..res.effect_radix[0]).collect(),
            against: Vec::new(),
        }
    } else {
        Headline {
            label: "P(at least 1 wound)".into(),
            metric: 1,
            values: (1..res.stride).collect(),
            against: Vec::new(),
        }
    };
    Compiled::new(name, description, Box::new(trial), metrics, headline)
        .exact(Some(exact))
        .fractions_later(move || attack_exact::<Ratio>(&later, &chances))
        .group(a.group.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn faces_parse_and_print() {
        let f = Face::parse("R1 3H S").unwrap();
        assert_eq!((f.range, f.damage, f.surge, f.miss), (1, 3, 1, false));
        assert_eq!(f.label(), "R1 3H S");
        assert!(Face::parse("X").unwrap().miss);
        assert!(Face::parse("H|R").unwrap().choice);
        assert_eq!(Face::parse("").unwrap(), Face::default());
        assert_eq!(Face::parse("2S").unwrap().surge, 2);
        assert!(Face::parse("3Q").is_err());
    }
}

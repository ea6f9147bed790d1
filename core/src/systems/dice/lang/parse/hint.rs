//! What a syntax error adds to "expected X, found Y": the nearest word of the language,
//! how this language spells other tools' notation and words, why a comparison, a comma
//! or a bracket is not taken where it stands.

use super::*;

/// How a remainder (`mod`) is written here.
const REMAINDER: &str =
    " (a remainder is written `%`: `3d6 % 2`, from 0 up to the divisor; the parity of each die: `count even`)";
/// How a power (`^`, `**`) is written here.
const POWER: &str =
    " (a power is written as a product from a `let`: `let x = d6 in x * x`; `d6 * d6` rolls two dice)";
/// How an absolute value (`|...|`) is written here.
const ABSOLUTE: &str = " (an absolute value is written `abs(...)`: `abs(d6 - d6)`)";
/// How rounding (`floor`, `ceil`, `round`) is written here.
const ROUNDING: &str =
    " (`/` rounds down: `3d6 / 3`; up, `(3d6 + 2) / 3`; to the nearest, `(3d6 * 2 + 3) / 6`)";

impl Parser {
    /// The hint after an error's "found ..." for the token here: empty where there is
    /// none to give.
    pub(super) fn hint(&self, expected: &str) -> String {
        // A misspelt word of the language gets its nearest spelling.
        match self.peek() {
                Tok::Word(w) if notation(w).is_some() => notation(w).unwrap_or_default(),
                Tok::Word(w) if self.said_otherwise(w).is_some() => {
                    self.said_otherwise(w).unwrap_or_default()
                }
                Tok::Word(w) if !KEYWORDS.contains(&w.as_str()) => {
                    // The reads of the shape table are words of the language too (`mod`:
                    // `mode`, not `max`).
                    // So is `middle`, a read that is not reserved (a name may be `middle`).
                    let shapes = crate::systems::dice::shapes::SHAPES
                        .iter()
                        .map(|s| s.word())
                        .chain(["middle"])
                        .filter(|c| c != w);
                    crate::config::reader::nearest_hint(w, KEYWORDS.iter().copied().chain(shapes))
                }
                // Where a name goes, a word of the language cannot be one: say so, rather
                // than leave a designer to guess why `highest` is not a name.
                Tok::Word(w) if expected.contains("name") && !expected.contains("a number") => {
                    format!(" (a word of the language, so not a name: write another, e.g. `my_{w}`)")
                }
                // A comparison is taken wherever one can go: one met here follows another
                // (`d20 >= 11 + d20 >= 11` is `d20 >= (11 + d20)`, then `>= 11`).
                Tok::Sym(_) if self.comparison().is_some() && !self.after_a_symbol() => {
                    " (comparisons do not chain: put each in parentheses, e.g. `(d20 >= 11) + (d20 >= 11)`)".into()
                }
                // `6d6 count (>= 5)`: the condition in brackets of its own.
                Tok::Sym(_) if self.comparison().is_some() && self.bracketed_condition() => {
                    " (a condition follows its word without brackets: `count >= 5`, `reroll <= 2`)".into()
                }
                Tok::Sym(",") => self.faces_without_on(),
                // `d6 ** 2`.
                Tok::Sym("*")
                    if matches!(
                        self.at.checked_sub(1).and_then(|i| self.toks.get(i)),
                        Some((Tok::Sym("*"), _))
                    ) =>
                {
                    POWER.into()
                }
                Tok::Sym("(") => self.not_a_function(),
                _ => String::new(),
            }
    }

    /// Words other tools and rulebooks use for what this language writes otherwise
    /// (`d20 adv`, `3d6 roll under 10`, `sum(3d6)`): how it is written here.
    fn said_otherwise(&self, w: &str) -> Option<String> {
        let next = match self.toks.get(self.at + 1) {
            Some((Tok::Word(n), _)) => n.as_str(),
            Some((Tok::Sym(s), _)) => s,
            Some((Tok::Int(_), _)) => "a number",
            _ => "",
        };
        Some(match (w, next) {
            ("adv" | "advantage" | "dis" | "disadvantage", _) => {
                " (advantage, the higher of two d20, is `2d20 highest`; disadvantage `2d20 lowest`)"
            }
            ("successes" | "success", _) => {
                " (dice that meet a number are counted with `count`: `5d10 count >= 7`)"
            }
            ("vs" | "versus", _) => {
                " (a roll against another is written apart: `vs` in a scenario, `--vs` on the command line; or their difference, `d20 - d20`)"
            }
            ("roll", "under" | "over") | ("under" | "over", _) => {
                " (a roll under a number is a comparison: `3d6 <= 10`; over it, `3d6 >= 10`)"
            }
            ("sum", "(") => " (dice are summed as they are: `3d6`, or `3d6 sum`)",
            // `3d6 mod 2`; `7d10 mod` alone is `mode` misspelt.
            ("mod", "a number" | "(") => REMAINDER,
            // `6d6 pairs`: the number of pairs in one pool.
            ("pairs", t) if t != "(" => {
                " (`pairs(a, b)` sets two pools against each other; the pairs within one pool are `sets 2`, e.g. `6d6 sets 2`)"
            }
            _ => return None,
        }
        .to_string())
    }

    /// A name followed by `(` (`avg(3d6)`): the functions there are, and that a roll's
    /// mean comes with it. A number, a bracket or a name bound above followed by `(`
    /// (`2 (3d6)`, `let p = 3d6 in p (2)`): a product, written with `*` here.
    fn not_a_function(&self) -> String {
        let product = |what: &str| format!(" (a product is written with `*`: `{what} * (...)`)");
        match self.at.checked_sub(1).and_then(|i| self.toks.get(i)) {
            Some((Tok::Word(w), _)) if ["floor", "ceil", "round"].contains(&w.as_str()) => {
                ROUNDING.into()
            }
            Some((Tok::Word(w), _)) if self.bound_before(w) => product(w),
            Some((Tok::Word(w), _)) if !KEYWORDS.contains(&w.as_str()) => format!(
                " (`{w}` is not a function: the functions are `max`, `min`, `abs`, `pairs`, `beats` and `cancel`; every roll shows its mean)"
            ),
            Some((Tok::Int(n), _)) => product(&n.to_string()),
            Some((Tok::Sym(")"), _)) => product("(...)"),
            _ => String::new(),
        }
    }

    /// Whether the token before is `(` right after a word that takes a condition
    /// (`count`, `reroll`, `explode`, `again`, `only`).
    fn bracketed_condition(&self) -> bool {
        let before = |k: usize| self.at.checked_sub(k).and_then(|i| self.toks.get(i));
        matches!(before(1), Some((Tok::Sym("("), _)))
            && matches!(before(2), Some((Tok::Word(w), _))
                if ["count", "reroll", "explode", "again", "only"].contains(&w.as_str()))
    }

    /// Whether `w` is given a value before the token before this one: a `let`'s or a
    /// `repeat`'s name (`let p = `, `let a, b = `, `repeat hp = `, `hp = hp - 1`).
    fn bound_before(&self, w: &str) -> bool {
        let upto = self.at.saturating_sub(1);
        self.toks[..upto].windows(2).any(|pair| {
            matches!(&pair[0].0, Tok::Word(x) if x == w)
                && matches!(pair[1].0, Tok::Sym("=") | Tok::Sym(","))
        })
    }

    /// A `keep` or `drop` with no end: which end `4d6 keep 3` keeps is not guessed,
    /// but the spelling is shown.
    pub(super) fn no_end(&self, keep: bool) -> SyntaxError {
        let mut e = self.unexpected(if keep {
            "`highest`, `lowest` or `middle`"
        } else {
            "`highest` or `lowest`"
        });
        if let Tok::Int(n) = self.peek() {
            let (word, end) = match keep {
                true => ("keep", "highest"),
                false => ("drop", "lowest"),
            };
            e.message
                .push_str(&format!(" (which dice: e.g. `{word} {end} {n}`)"));
        }
        e
    }

    /// Where a face after `reroll`, `explode`, `again` or `count` is followed by a
    /// comma (`2d6 reroll 1, 2`): how faces are named one by one. A comma alone cannot
    /// say it, as `max(d6 reroll 1, 2)` has two arguments.
    fn faces_without_on(&self) -> String {
        let back = |k: usize| self.at.checked_sub(k).and_then(|i| self.toks.get(i));
        match (self.peek(), back(1), back(2)) {
            (Tok::Sym(","), Some((Tok::Int(n), _)), Some((Tok::Word(w), _)))
                if ["reroll", "explode", "again", "count"].contains(&w.as_str()) =>
            {
                format!(" (faces named one by one follow `on`: `{w} on {n}, ...`)")
            }
            _ => String::new(),
        }
    }

    /// Whether the token before this one is a symbol other than a closing bracket
    /// (`>= >=`: not a chain of two comparisons, a face left out).
    fn after_a_symbol(&self) -> bool {
        let before = self.at.checked_sub(1).and_then(|i| self.toks.get(i));
        matches!(before, Some((Tok::Sym(s), _)) if ![")", "]", "}"].contains(s))
    }
}

/// Other tools' short dice notation met as a word (`4d6kh3` lexes as `4` and
/// `d6kh3`; `4d6 k3`): how this language spells it.
fn notation(w: &str) -> Option<String> {
    let rest = match w.strip_prefix('d') {
        Some(r) => r.trim_start_matches(|c: char| c.is_ascii_digit() || c == '%' || c == 'F'),
        None => w,
    };
    let split = rest
        .find(|c: char| c.is_ascii_digit())
        .unwrap_or(rest.len());
    let (code, n) = rest.split_at(split);
    if !n.chars().all(|c| c.is_ascii_digit()) || (code.len() == w.len() && n.is_empty()) {
        return None;
    }
    let n = if n.is_empty() { "1" } else { n };
    let spelt = match code {
        "kh" | "k" => "keep highest",
        "kl" => "keep lowest",
        "dh" => "drop highest",
        "dl" | "d" if rest.len() < w.len() || code == "dl" => "drop lowest",
        "r" => "reroll",
        _ => return None,
    };
    Some(format!(" (written out here: `{spelt} {n}`)"))
}

/// A character the language does not use, after the token `last` and before `next`:
/// how this language writes what it means elsewhere (`d6!`, `%`, `? :`, `&&`, `;`, ...).
pub(super) fn unexpected(c: char, next: Option<char>, last: Option<&(Tok, Col)>) -> &'static str {
    // `d6!`, as other dice notations write an exploding die.
    let after_a_die = matches!(last, Some((Tok::Dice(_), _)));
    match (c, after_a_die) {
        ('!', true) => " (an exploding die is written `d6 explode`)",
        // Other languages' operators, and how this one writes them.
        ('^', _) => POWER,
        ('|', _) if next == Some('|') => " (either is written `or`)",
        ('|', _) => ABSOLUTE,
        ('&', _) => " (both is written `and`)",
        ('!', _) => " (`not`, or `!=` for unequal)",
        ('?', _) => {
            " (a choice is written `if ... then ... else ...`: `if 3d6 >= 10 then 1 else 0`)"
        }
        (';', _) => " (a `let` goes on with `in`: `let x = d6 in x * 2`)",
        ('.', _) => match last {
            Some((Tok::Int(_), _)) => {
                " (numbers are whole: a half is written with `/`, `3d6 / 2`, which rounds down)"
            }
            _ => " (a read follows with a space: `p count 6`, `p highest`)",
        },
        _ => "",
    }
}

//! What a roll does that its writer may not mean: said beside the numbers, never
//! refused, as the rules allow it (`4d6 keep highest 5` keeps all four dice).

use super::{parse, visit, AggOf, End, Expr, ModOf, Op};

/// A keep of more dice than the pool has (every die is kept) and a drop of as many as
/// it has or more (none is left), where the pool's dice and the count are written as
/// numbers and no `again` adds dice. Empty for a roll that does not parse: its error
/// says what there is to say.
pub fn surprises(text: &str) -> Vec<String> {
    parse(text).map_or_else(|_| Vec::new(), |e| surprises_in(&e))
}

/// [`surprises`] of a roll parsed already (a scenario's roll is parsed once).
pub fn surprises_in(e: &Expr) -> Vec<String> {
    let mut said = Vec::new();
    visit(e, &mut |x| {
        if let Some(s) = constant_comparison(x) {
            said.push(s);
        }
        let Expr::Pool { groups, mods, .. } = x else {
            return;
        };
        if mods.iter().any(|m| matches!(m, ModOf::Again(_))) {
            return;
        }
        let Some(mut dice) = groups
            .iter()
            .map(|g| match g.count {
                Expr::Num(n) => Some(n.max(0)),
                _ => None,
            })
            .sum::<Option<i64>>()
        else {
            return;
        };
        let end = |e: &End| match e {
            End::Highest => "highest",
            End::Lowest => "lowest",
        };
        let them = |n: i64| match n {
            1 => "1 die".to_string(),
            n => format!("{n} dice"),
        };
        for m in mods {
            // What the modifier is called, its count, and whether it keeps that many
            // (else it drops them).
            let (called, k, keeps) = match m {
                ModOf::Keep(e, k) => (format!("keep {}", end(e)), k, true),
                ModOf::Middle(k) => ("keep middle".to_string(), k, true),
                ModOf::Drop(e, k) => (format!("drop {}", end(e)), k, false),
                _ => continue,
            };
            let Expr::Num(k) = **k else {
                continue;
            };
            let k = k.max(0);
            if keeps && k > dice {
                said.push(format!(
                    "`{called} {k}` of {}: every die is kept",
                    them(dice)
                ));
            } else if !keeps && k >= dice && dice > 0 {
                said.push(format!("`{called} {k}` of {}: no die is left", them(dice)));
            }
            dice = if keeps {
                dice.min(k)
            } else {
                dice - k.min(dice)
            };
        }
    });
    said
}

/// A pool's sum compared with a number it can never pass, or always passes (`10d6 >= 5`,
/// read by a tool where that counts the dice): said, with how to count the dice. Only
/// a pool of one kind of die, its count and faces written as numbers, read as its sum.
fn constant_comparison(x: &Expr) -> Option<String> {
    let Expr::Bin(Op::Cmp(c), a, b) = x else {
        return None;
    };
    let (
        Expr::Pool {
            groups, mods, agg, ..
        },
        Expr::Num(k),
    ) = (&**a, &**b)
    else {
        return None;
    };
    let plain = mods.is_empty() && matches!(agg, None | Some(AggOf::Sum));
    let [g] = groups.as_slice() else {
        return None;
    };
    let Expr::Num(n) = g.count else {
        return None;
    };
    let (lo, hi) = (g.die.faces.iter().min()?, g.die.faces.iter().max()?);
    if !plain || g.deck || g.die.sides.is_some() || n < 1 {
        return None;
    }
    let (sum_lo, sum_hi) = (n.checked_mul(*lo)?, n.checked_mul(*hi)?);
    if sum_hi - sum_lo > 1_000_000 {
        return None;
    }
    let first = c.holds(sum_lo, *k);
    if (sum_lo..=sum_hi).any(|v| c.holds(v, *k) != first) {
        return None;
    }
    let (op, holds) = (c.text(), if first { "always" } else { "never" });
    let (pool, sum) = match n {
        1 => (g.die.text.clone(), g.die.text.clone()),
        n => (
            format!("{n}{}", g.die.text),
            format!("the sum of {n}{}", g.die.text),
        ),
    };
    let count = match n > 1 && (lo..=hi).contains(&k) {
        true => format!(" (to count the dice, write `{pool} count {op} {k}`)"),
        false => String::new(),
    };
    Some(format!(
        "`{pool} {op} {k}` {holds} holds: {sum} is {sum_lo} to {sum_hi}{count}"
    ))
}

#[cfg(test)]
mod tests {
    use super::surprises;

    #[test]
    fn a_keep_past_the_pool_and_a_drop_of_every_die_are_said() {
        assert_eq!(
            surprises("4d6 keep highest 5"),
            ["`keep highest 5` of 4 dice: every die is kept"]
        );
        assert_eq!(
            surprises("[2d6, 1d8] drop lowest 3 + d6 drop lowest"),
            [
                "`drop lowest 3` of 3 dice: no die is left",
                "`drop lowest 1` of 1 die: no die is left"
            ]
        );
        assert_eq!(
            surprises("let p = 3d6 keep middle 4 in p"),
            ["`keep middle 4` of 3 dice: every die is kept"]
        );
        // One after the other: a keep of 3 then a drop of 3 leaves none.
        assert_eq!(
            surprises("5d6 keep highest 3 drop lowest 3"),
            ["`drop lowest 3` of 3 dice: no die is left"]
        );
        // A sum compared where it cannot differ.
        assert_eq!(
            surprises("10d6 >= 5"),
            ["`10d6 >= 5` always holds: the sum of 10d6 is 10 to 60 (to count the dice, write `10d6 count >= 5`)"]
        );
        assert_eq!(
            surprises("let x = 2d6 > 12 in x"),
            ["`2d6 > 12` never holds: the sum of 2d6 is 2 to 12"]
        );
        assert_eq!(
            surprises("d6 >= 7"),
            ["`d6 >= 7` never holds: d6 is 1 to 6"]
        );
        // Nothing to say: a keep within the pool, a count not written as a number, a
        // pool that `again` grows, a roll that does not parse.
        for quiet in [
            "4d6 keep highest 4",
            "4d6 drop lowest 3",
            "(d4)d6 keep highest 5",
            "let k = 5 in 4d6 keep highest k",
            "3d10 again 10 keep highest 4",
            "4d6 keep highest",
            "3d6 >= 10",
            "10d6 count >= 5",
            "2d6 >= 2 + 1",
            "(d4)d6 >= 1",
        ] {
            assert!(
                surprises(quiet).is_empty(),
                "{quiet}: {:?}",
                surprises(quiet)
            );
        }
    }
}

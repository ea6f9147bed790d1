//! `let a, b, c = deck{...} draw 3 in ...`: cards (or dice) named one by one in the
//! order they come, written out as the `let`s it stands for.
//!
//! Dice are independent, so `let a, b = 2d6` is `let a = d6 in let b = d6`. Cards are
//! not: the second card comes from the deck the first left. A deal in order is the hand
//! (how many of each card, which both engines already count exactly) dealt in a random
//! order, every order of its cards equally likely. So the hand is dealt as a pool
//! variable, then each name takes one of the hand's cards, by its place among them
//! from the lowest, chosen uniformly among the places not yet taken: `d(k)` for the
//! first, `d(k - 1)` for the second, and so on. Both engines read the hand by places
//! already; no engine has a rule of its own for it, so the exact value and Monte Carlo
//! cannot disagree over what an order is.

use super::*;

/// The most names one deal in order takes: a body is worked out once for every hand
/// and every order of its cards (`k!` of them).
pub const MAX_IN_ORDER: usize = 8;

/// `let NAMES = BOUND in BODY` with several names, as plain `let`s.
pub(super) fn in_order(
    names: Vec<(String, Col)>,
    bound: Expr,
    body: Expr,
    col: Col,
) -> Result<Expr, SyntaxError> {
    let err = |message: String| SyntaxError { col, message };
    let k = names.len();
    let Expr::Pool {
        groups,
        mods,
        agg: None,
        ..
    } = &bound
    else {
        return Err(err(format!(
            "{k} names take {k} cards or dice, one each: a deal (`deck{{...}} draw {k}`) or dice (`{k}d6`), without a read"
        )));
    };
    let fixed = |g: &Group| match g.count {
        Expr::Num(n) => Some(n),
        _ => None,
    };
    let counts: Option<Vec<i64>> = groups.iter().map(fixed).collect();
    let Some(counts) = counts else {
        return Err(err(format!(
            "{k} names take a fixed number of cards or dice: write the count as a number (`draw {k}`, `{k}d6`)"
        )));
    };
    let total: i64 = counts.iter().sum();
    if total != k as i64 {
        let what = if groups.iter().any(|g| g.deck) {
            "cards"
        } else {
            "dice"
        };
        return Err(err(format!(
            "{k} names for {total} {what}: name each of them, one name each"
        )));
    }
    if !mods.is_empty() {
        return Err(err(
            "dice named one by one are plain: a modifier goes on each die's own `let` (`let a = d6 explode in let b = d6 in ...`)"
                .into(),
        ));
    }
    if let [g] = groups.as_slice() {
        if g.deck {
            return Ok(deal(names, g.clone(), body, col));
        }
    }
    // Dice: each its own roll, in the order written.
    let dice = groups
        .iter()
        .zip(&counts)
        .flat_map(|(g, &n)| std::iter::repeat_n(g, n as usize));
    let mut lets: Vec<(String, Expr)> = Vec::new();
    for ((name, c), g) in names.into_iter().zip(dice) {
        let die = Expr::Pool {
            groups: vec![Group {
                count: Expr::Num(1),
                die: g.die.clone(),
                deck: false,
            }],
            mods: Vec::new(),
            agg: Some(AggOf::Sum),
            col: c,
        };
        lets.push((name, die));
    }
    Ok(wrap(lets, body))
}

/// The hand dealt, then its cards taken in a random order: the `j`-th name takes the
/// card at place `o_j`-th among the places the names before it left, `o_j` rolled on
/// `d(k - j)`.
fn deal(names: Vec<(String, Col)>, deck: Group, body: Expr, col: Col) -> Expr {
    // Names a designer cannot write.
    let hidden = |n: String| format!("\u{0}{n}");
    let hand = hidden("hand".into());
    let k = names.len();
    let var = |n: &str| Expr::Name(n.to_string(), col);
    let bin = |op: Op, a: Expr, b: Expr| Expr::Bin(op, Box::new(a), Box::new(b));
    let mut lets = vec![(
        hand.clone(),
        Expr::Pool {
            groups: vec![deck],
            mods: Vec::new(),
            agg: None,
            col,
        },
    )];
    // Each place taken so far, as the name of the `let` holding it.
    let mut taken: Vec<String> = Vec::new();
    for (j, (name, c)) in names.into_iter().enumerate() {
        let roll = hidden(format!("order{j}"));
        let left = (k - j) as i64;
        lets.push((
            roll.clone(),
            if left == 1 {
                Expr::Num(1)
            } else {
                Expr::Pool {
                    groups: vec![Group {
                        count: Expr::Num(1),
                        die: Die {
                            faces: (1..=left).collect(),
                            text: format!("d{left}"),
                            sides: None,
                            names: Vec::new(),
                        },
                        deck: false,
                    }],
                    mods: Vec::new(),
                    agg: Some(AggOf::Sum),
                    col,
                }
            },
        ));
        // The `o`-th place not taken: `x = o + (places taken at or below x)`, from
        // `x = o` upwards, settles within as many steps as places are taken.
        let mut place = roll.clone();
        for step in 0..taken.len() {
            let below = taken.iter().fold(var(&roll), |acc, t| {
                bin(Op::Add, acc, bin(Op::Cmp(Cmp::Le), var(t), var(&place)))
            });
            let next = hidden(format!("place{j}.{step}"));
            lets.push((next.clone(), below));
            place = next;
        }
        taken.push(place.clone());
        lets.push((
            name,
            Expr::Read {
                name: hand.clone(),
                keep: Some(ModOf::Keep(End::Lowest, Box::new(var(&place)))),
                agg: Some(AggOf::Highest),
                col: c,
            },
        ));
    }
    wrap(lets, body)
}

fn wrap(lets: Vec<(String, Expr)>, body: Expr) -> Expr {
    lets.into_iter().rev().fold(body, |body, (name, bound)| {
        Expr::Let(name, Box::new(bound), Box::new(body))
    })
}

#[cfg(test)]
mod tests {
    use super::super::parse;

    fn refused(text: &str) -> String {
        parse(text).expect_err(text).message
    }

    #[test]
    fn names_in_order_take_one_card_or_die_each() {
        assert!(parse("let a, b = deck{1, 2, 3} draw 2 in a - b").is_ok());
        assert!(parse("let a, b, c = [2d6, 1d8] in a + b * c").is_ok());
        assert!(refused("let a, b = deck{1, 2, 3} draw 3 in a").contains("2 names for 3 cards"));
        assert!(refused("let a, b = 3d6 in a").contains("2 names for 3 dice"));
        assert!(refused("let a, b = 2d6 explode in a").contains("plain"));
        assert!(refused("let a, b = 2d6 sum in a").contains("without a read"));
        assert!(refused("let a, b = (d3)d6 in a").contains("fixed number"));
        assert!(refused("let a, a = 2d6 in a").contains("named twice"));
        assert!(refused("let a, b, c, d, e, f, g, h, i = 9d6 in a").contains("at most 8 names"));
    }
}

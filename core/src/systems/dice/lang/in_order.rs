//! `let a, b, c = deck{...} draw 3 in ...`: cards (or dice) named one by one in the
//! order they come, written out as the `let`s it stands for.
//!
//! Dice are independent, so `let a, b = 2d6` is `let a = d6 in let b = d6`. Cards are
//! not: the second card comes from the deck the first left. So each name is a `let` of
//! one card ([`Expr::Card`]) dealt from the deck less the cards named before it: the
//! exact engines follow the values dealt (a value at a time, as many sequences as the
//! values allow, not every hand times its orders), and Monte Carlo deals a card at a
//! time, as a dealer does.

use super::*;

/// The most names one `let` takes: a deck's worth of cards. The work a deal takes is
/// the engines' to judge (a body once for every sequence of values the deal can give).
pub const MAX_IN_ORDER: usize = 52;

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
            let cards = g.die.faces.len();
            if k > cards {
                return Err(err(format!(
                    "draw {k}: a deck of {cards} cards deals 0 to {cards}"
                )));
            }
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

/// Card after card, each from what the cards named before it left of the deck. A card
/// named and never read is not dealt: the cards read, wherever they lie in the deal,
/// come as the first cards of a deal do (every order of a shuffled deck is as likely),
/// so War's ten cards, of which four are read, are worked out as those four.
fn deal(names: Vec<(String, Col)>, deck: Group, body: Expr, col: Col) -> Expr {
    let mut lets: Vec<(String, Expr)> = Vec::new();
    let mut before: Vec<Expr> = Vec::new();
    let read = names
        .into_iter()
        .filter(|(name, _)| super::allocate::mentions_name(&body, name));
    for (name, c) in read {
        let card = Expr::Card {
            faces: deck.die.faces.clone(),
            before: before.clone(),
            col,
        };
        before.push(Expr::Name(name.clone(), c));
        lets.push((name, card));
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
        assert!(refused("let a, b, c = deck{1, 2} draw 3 in a")
            .contains("a deck of 2 cards deals 0 to 2"));
        assert!(parse("let a, b, c, d, e, f, g, h, i = 9d6 in a").is_ok());
        let many = (0..53)
            .map(|i| format!("x{i}"))
            .collect::<Vec<_>>()
            .join(", ");
        assert!(refused(&format!("let {many} = 53d6 in x0")).contains("at most 52 names"));
    }
}

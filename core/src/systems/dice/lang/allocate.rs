//! `allocate(...)`: damage dealt hit by hit to a unit's models, written out as the
//! `repeat` it stands for.

use super::*;

/// An `allocate` as its `repeat`. State: the unit's models and wounds (rolled once),
/// the models alive, the wounds of the model taking damage, the damage lost, and each
/// weapon's hits left. A round is one hit of the first weapon with hits left.
pub(super) fn allocation(
    models: Expr,
    wounds: Expr,
    weapons: Vec<(Expr, Expr)>,
    spill: bool,
    body: Expr,
    col: Col,
) -> Expr {
    // Names a designer cannot write: the state is the form's own.
    let v = |n: &str| Expr::Name(format!("\u{0}{n}"), col);
    let num = Expr::Num;
    let bin = |op: Op, a: Expr, b: Expr| Expr::Bin(op, Box::new(a), Box::new(b));
    let iff = |c: Expr, a: Expr, b: Expr| Expr::If(Box::new(c), Box::new(a), Box::new(b));
    let left = |j: usize| format!("\u{0}left{j}");
    let k = weapons.len();
    // The damage lost is a state only when the body reads it: it grows the chain.
    let reads_lost = mentions_name(&body, "lost");
    // The unit's models and wounds, rolled once: `let`s around the `repeat`.
    let mut state = vec![
        ("\u{0}alive".to_string(), v("m"), col),
        ("\u{0}hp".to_string(), v("w"), col),
    ];
    if reads_lost {
        state.push(("\u{0}lost".to_string(), num(0), col));
    }
    for (j, (hits, _)) in weapons.iter().enumerate() {
        state.push((left(j), hits.clone(), col));
    }
    // Done when the unit is gone or every weapon is spent.
    let spent = (1..k).fold(
        bin(Op::Cmp(Cmp::Le), Expr::Name(left(0), col), num(0)),
        |acc, i| {
            Expr::And(
                Box::new(acc),
                Box::new(bin(Op::Cmp(Cmp::Le), Expr::Name(left(i), col), num(0))),
            )
        },
    );
    let until = Expr::Or(
        Box::new(bin(Op::Cmp(Cmp::Le), v("alive"), num(0))),
        Box::new(spent),
    );
    let max = |a: Expr, b: Expr| bin(Op::Max, a, b);
    // The damage of this hit: the first weapon with hits left.
    let mut damage = weapons[k - 1].1.clone();
    for j in (0..k - 1).rev() {
        damage = iff(
            bin(Op::Cmp(Cmp::Gt), Expr::Name(left(j), col), num(0)),
            weapons[j].1.clone(),
            damage,
        );
    }
    // The unit's wounds left: the models behind the one taking damage, and its own.
    let total = bin(
        Op::Add,
        bin(Op::Mul, bin(Op::Sub, v("alive"), num(1)), v("w")),
        v("hp"),
    );
    let d = || v("d");
    let mut updates = Vec::new();
    let mut lets = vec![("\u{0}d".to_string(), damage)];
    if spill {
        // The damage runs on: the unit's wounds less it, the models the rest make up.
        lets.push((
            "\u{0}rest".to_string(),
            max(num(0), bin(Op::Sub, total.clone(), d())),
        ));
        let rest = || v("rest");
        let alive = bin(
            Op::Div,
            bin(Op::Sub, bin(Op::Add, rest(), v("w")), num(1)),
            v("w"),
        );
        updates.push(("\u{0}alive".to_string(), alive.clone(), col));
        updates.push((
            "\u{0}hp".to_string(),
            iff(
                bin(Op::Cmp(Cmp::Gt), rest(), num(0)),
                // The model taking damage: its share of the rest, 1 to w.
                max(
                    num(1),
                    bin(
                        Op::Min,
                        v("w"),
                        bin(
                            Op::Sub,
                            rest(),
                            bin(Op::Mul, bin(Op::Sub, alive, num(1)), v("w")),
                        ),
                    ),
                ),
                v("w"),
            ),
            col,
        ));
        updates.push((
            "\u{0}lost".to_string(),
            // Only the hit that ends the unit loses damage (nothing is lost before,
            // and no hit comes after): the larger of the two, as tight as its values.
            max(v("lost"), bin(Op::Sub, d(), total)),
            col,
        ));
    } else {
        // The model takes the damage; past its last wound the rest is lost.
        lets.push(("\u{0}kill".to_string(), bin(Op::Cmp(Cmp::Ge), d(), v("hp"))));
        let kill = || v("kill");
        // (`max` keeps each variable's range as tight as its values.)
        updates.push((
            "\u{0}alive".to_string(),
            max(num(0), bin(Op::Sub, v("alive"), kill())),
            col,
        ));
        updates.push((
            "\u{0}hp".to_string(),
            iff(kill(), v("w"), max(num(1), bin(Op::Sub, v("hp"), d()))),
            col,
        ));
        updates.push((
            "\u{0}lost".to_string(),
            bin(
                Op::Add,
                v("lost"),
                iff(kill(), max(num(0), bin(Op::Sub, d(), v("hp"))), num(0)),
            ),
            col,
        ));
    }
    // One hit of the first weapon with hits left.
    for j in 0..k {
        let mut first = bin(Op::Cmp(Cmp::Gt), Expr::Name(left(j), col), num(0));
        for i in 0..j {
            first = Expr::And(
                Box::new(first),
                Box::new(bin(Op::Cmp(Cmp::Le), Expr::Name(left(i), col), num(0))),
            );
        }
        updates.push((
            left(j),
            max(num(0), bin(Op::Sub, Expr::Name(left(j), col), first)),
            col,
        ));
    }
    // What the body reads.
    let wounds_left = iff(
        bin(Op::Cmp(Cmp::Gt), v("alive"), num(0)),
        bin(
            Op::Add,
            bin(Op::Mul, bin(Op::Sub, v("alive"), num(1)), v("w")),
            v("hp"),
        ),
        num(0),
    );
    if !reads_lost {
        updates.retain(|(n, ..)| n != "\u{0}lost");
    }
    let body = if reads_lost {
        Expr::Let("lost".into(), Box::new(v("lost")), Box::new(body))
    } else {
        body
    };
    let body = Expr::Let(
        "killed".into(),
        Box::new(bin(Op::Sub, v("m"), v("alive"))),
        Box::new(Expr::Let(
            "wounds_left".into(),
            Box::new(wounds_left),
            Box::new(body),
        )),
    );
    let repeat = Expr::Repeat(Box::new(Repeat {
        state,
        until,
        lets,
        updates,
        limit: ALLOCATE_LIMIT,
        body,
        col,
    }));
    Expr::Let(
        "\u{0}m".into(),
        Box::new(models),
        Box::new(Expr::Let(
            "\u{0}w".into(),
            Box::new(wounds),
            Box::new(repeat),
        )),
    )
}

/// Hits one `allocate` plays out (a round each); more are left unplayed, their exact
/// probability reported. (It also bounds the damage lost, which grows with the hits.)
pub const ALLOCATE_LIMIT: u32 = 200;

/// Whether `e` names `name` anywhere (a conservative look: shadowing is not followed).
pub(super) fn mentions_name(e: &Expr, name: &str) -> bool {
    let mut found = false;
    visit(e, &mut |x| {
        found |= matches!(x, Expr::Name(n, _) if n == name)
    });
    found
}

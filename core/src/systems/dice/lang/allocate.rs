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
    let a = Ast(col);
    let k = weapons.len();
    // The damage lost is a state only when the body reads it: it grows the chain.
    let reads_lost = mentions_name(&body, "lost");
    // The unit's models and wounds, rolled once: `let`s around the `repeat`.
    let mut state = vec![
        ("\u{0}alive".to_string(), a.v("m"), col),
        ("\u{0}hp".to_string(), a.v("w"), col),
    ];
    if reads_lost {
        state.push(("\u{0}lost".to_string(), Expr::Num(0), col));
    }
    for (j, (hits, _)) in weapons.iter().enumerate() {
        state.push((left(j), hits.clone(), col));
    }
    // Done when the unit is gone or every weapon is spent.
    let spent = (1..k).fold(a.le(a.left(0), Expr::Num(0)), |acc, i| {
        Expr::And(Box::new(acc), Box::new(a.le(a.left(i), Expr::Num(0))))
    });
    let until = Expr::Or(Box::new(a.le(a.v("alive"), Expr::Num(0))), Box::new(spent));
    let mut lets = vec![("\u{0}d".to_string(), hit_damage(&a, &weapons))];
    let mut updates = if spill {
        spill_hit(&a, &mut lets)
    } else {
        model_hit(&a, &mut lets)
    };
    updates.extend(weapon_steps(&a, k));
    if !reads_lost {
        updates.retain(|(n, ..)| n != "\u{0}lost");
    }
    let repeat = Expr::Repeat(Box::new(Repeat {
        state,
        until,
        lets,
        updates,
        limit: ALLOCATE_LIMIT,
        body: what_the_body_reads(&a, body, reads_lost),
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

/// The state of weapon `j`'s hits left.
fn left(j: usize) -> String {
    format!("\u{0}left{j}")
}

/// The pieces of the `repeat` an `allocate` writes, all at its column. Its names are ones
/// a designer cannot write: the state is the form's own.
struct Ast(Col);

impl Ast {
    fn v(&self, n: &str) -> Expr {
        Expr::Name(format!("\u{0}{n}"), self.0)
    }

    fn left(&self, j: usize) -> Expr {
        Expr::Name(left(j), self.0)
    }

    fn bin(&self, op: Op, a: Expr, b: Expr) -> Expr {
        Expr::Bin(op, Box::new(a), Box::new(b))
    }

    fn le(&self, a: Expr, b: Expr) -> Expr {
        self.bin(Op::Cmp(Cmp::Le), a, b)
    }

    fn gt(&self, a: Expr, b: Expr) -> Expr {
        self.bin(Op::Cmp(Cmp::Gt), a, b)
    }

    fn max(&self, a: Expr, b: Expr) -> Expr {
        self.bin(Op::Max, a, b)
    }

    fn iff(&self, c: Expr, a: Expr, b: Expr) -> Expr {
        Expr::If(Box::new(c), Box::new(a), Box::new(b))
    }

    /// The unit's wounds left: the models behind the one taking damage, and its own.
    fn wounds_left(&self) -> Expr {
        self.bin(
            Op::Add,
            self.bin(
                Op::Mul,
                self.bin(Op::Sub, self.v("alive"), Expr::Num(1)),
                self.v("w"),
            ),
            self.v("hp"),
        )
    }
}

/// The damage of this hit: the first weapon with hits left.
fn hit_damage(a: &Ast, weapons: &[(Expr, Expr)]) -> Expr {
    let k = weapons.len();
    let mut damage = weapons[k - 1].1.clone();
    for j in (0..k - 1).rev() {
        damage = a.iff(a.gt(a.left(j), Expr::Num(0)), weapons[j].1.clone(), damage);
    }
    damage
}

/// A hit whose damage runs on: the unit's wounds less it, the models the rest make up.
fn spill_hit(a: &Ast, lets: &mut Vec<(String, Expr)>) -> Vec<(String, Expr, Col)> {
    let col = a.0;
    let total = a.wounds_left();
    lets.push((
        "\u{0}rest".to_string(),
        a.max(Expr::Num(0), a.bin(Op::Sub, total.clone(), a.v("d"))),
    ));
    let rest = || a.v("rest");
    let alive = a.bin(
        Op::Div,
        a.bin(Op::Sub, a.bin(Op::Add, rest(), a.v("w")), Expr::Num(1)),
        a.v("w"),
    );
    // The model taking damage: its share of the rest, 1 to w.
    let share = a.max(
        Expr::Num(1),
        a.bin(
            Op::Min,
            a.v("w"),
            a.bin(
                Op::Sub,
                rest(),
                a.bin(
                    Op::Mul,
                    a.bin(Op::Sub, alive.clone(), Expr::Num(1)),
                    a.v("w"),
                ),
            ),
        ),
    );
    vec![
        ("\u{0}alive".to_string(), alive, col),
        (
            "\u{0}hp".to_string(),
            a.iff(a.gt(rest(), Expr::Num(0)), share, a.v("w")),
            col,
        ),
        (
            "\u{0}lost".to_string(),
            // Only the hit that ends the unit loses damage (nothing is lost before,
            // and no hit comes after): the larger of the two, as tight as its values.
            a.max(a.v("lost"), a.bin(Op::Sub, a.v("d"), total)),
            col,
        ),
    ]
}

/// A hit the model taking it absorbs: past its last wound the rest is lost.
fn model_hit(a: &Ast, lets: &mut Vec<(String, Expr)>) -> Vec<(String, Expr, Col)> {
    let col = a.0;
    let d = || a.v("d");
    lets.push((
        "\u{0}kill".to_string(),
        a.bin(Op::Cmp(Cmp::Ge), d(), a.v("hp")),
    ));
    let kill = || a.v("kill");
    // (`max` keeps each variable's range as tight as its values.)
    vec![
        (
            "\u{0}alive".to_string(),
            a.max(Expr::Num(0), a.bin(Op::Sub, a.v("alive"), kill())),
            col,
        ),
        (
            "\u{0}hp".to_string(),
            a.iff(
                kill(),
                a.v("w"),
                a.max(Expr::Num(1), a.bin(Op::Sub, a.v("hp"), d())),
            ),
            col,
        ),
        (
            "\u{0}lost".to_string(),
            a.bin(
                Op::Add,
                a.v("lost"),
                a.iff(
                    kill(),
                    a.max(Expr::Num(0), a.bin(Op::Sub, d(), a.v("hp"))),
                    Expr::Num(0),
                ),
            ),
            col,
        ),
    ]
}

/// One hit of the first weapon with hits left: its count goes down by one.
fn weapon_steps(a: &Ast, k: usize) -> Vec<(String, Expr, Col)> {
    (0..k)
        .map(|j| {
            let first = (0..j).fold(a.gt(a.left(j), Expr::Num(0)), |acc, i| {
                Expr::And(Box::new(acc), Box::new(a.le(a.left(i), Expr::Num(0))))
            });
            (
                left(j),
                a.max(Expr::Num(0), a.bin(Op::Sub, a.left(j), first)),
                a.0,
            )
        })
        .collect()
}

/// The body with the names it reads: `killed`, `wounds_left` and, when it reads it,
/// `lost`.
fn what_the_body_reads(a: &Ast, body: Expr, reads_lost: bool) -> Expr {
    let wounds_left = a.iff(
        a.gt(a.v("alive"), Expr::Num(0)),
        a.wounds_left(),
        Expr::Num(0),
    );
    let body = if reads_lost {
        Expr::Let("lost".into(), Box::new(a.v("lost")), Box::new(body))
    } else {
        body
    };
    Expr::Let(
        "killed".into(),
        Box::new(a.bin(Op::Sub, a.v("m"), a.v("alive"))),
        Box::new(Expr::Let(
            "wounds_left".into(),
            Box::new(wounds_left),
            Box::new(body),
        )),
    )
}

/// Hits one `allocate` plays out (a round each); more are left unplayed, their exact
/// probability reported. (It also bounds the damage lost, which grows with the hits.)
pub const ALLOCATE_LIMIT: u32 = 200;

/// Whether `e` names `name` anywhere, as a value, a pool variable read or a role's sides
/// (a conservative look: shadowing is not followed).
pub(super) fn mentions_name(e: &Expr, name: &str) -> bool {
    let mut found = false;
    visit(e, &mut |x| {
        found |= match x {
            Expr::Name(n, _) | Expr::Sides(n, _) | Expr::Read { name: n, .. } => n == name,
            _ => false,
        }
    });
    found
}

//! A `repeat`'s rounds compiled: its state variables bound by what they can reach, so
//! that a dice count read from the state has a pool for every number it takes and none
//! past them.

use super::*;

/// How many guesses of a `repeat`'s state bounds are compiled before its rounds are
/// made for a state not known ([`Compiler::repeat_guessed`]): a guess widened once
/// settles most (a count that shrinks: its start, then what it falls to).
const GUESSES: usize = 4;

impl Compiler<'_> {
    /// A `repeat`; `record_ok`: its `then` may be a record (the repeat is the result).
    pub(super) fn repeat(
        &mut self,
        r: &lang::Repeat,
        record_ok: bool,
    ) -> Result<Node, CompileError> {
        let d = self.scope.len();
        if d + r.state.len() + 1 > VARS {
            return Err(CompileError {
                col: r.col,
                message: format!("more than {VARS} names in scope at once"),
            });
        }
        let mut init = Vec::new();
        for (i, (name, e, col)) in r.state.iter().enumerate() {
            if r.state[..i].iter().any(|(m, ..)| m == name) {
                return Err(CompileError {
                    col: *col,
                    message: format!("`{name}` is a state variable twice"),
                });
            }
            init.push(self.node(e)?);
        }
        let outer = self.var_bounds();
        let rounds = (0, i64::from(r.limit));
        if counts_vary(r) && !self.guessing {
            self.guessing = true;
            let guessed = self.repeat_guessed(r, &init, &outer, rounds, record_ok);
            self.guessing = false;
            if let Some(made) = guessed {
                return Ok(Node::Repeat(Box::new(made)));
            }
        }
        self.scope.truncate(d);
        let mut made = self.repeat_with(r, init.clone(), None, rounds, record_ok)?;
        // A count in the rounds (`(c)d6` of a state starting at 150) was given pools by
        // bounds not known then: made again with the state's bounds as the compiled
        // rounds give them, while that makes a count's pools cover it, at most twice
        // more; where it cannot (more copies than allowed), the first stands, and the
        // load checks its counts by their exact reach.
        for _ in 0..2 {
            let short = repeat_past_limit(&made, &mut outer.clone())
                .is_some_and(|hi| hi <= MAX_COUNTED_DICE);
            if !short {
                break;
            }
            let state = repeat_bounds(&made, &mut outer.clone());
            self.scope.truncate(d);
            match self.repeat_with(r, init.clone(), Some(&state), rounds, record_ok) {
                Ok(again) if again != made => made = again,
                _ => break,
            }
        }
        Ok(Node::Repeat(Box::new(made)))
    }

    /// The rounds compiled with their state's bounds guessed, from the start's and
    /// widened by what the rounds compiled with them reach, until the rounds keep the
    /// state within its guess: then every state they can reach is one they were made
    /// for (a round from inside the guess stays inside it, by induction from the start),
    /// and a count read from the state has its pools up to the most it takes. `(5 - s)d6`
    /// of a state that stays within 0 to 3 was made for every count up to 100 (the
    /// state's bounds not known), a program of 101 copies of the round compiled, copied
    /// and walked, for 4 that come. None where the guess does not settle in
    /// [`GUESSES`] tries, or a compile with it fails: the rounds are then made for a
    /// state not known.
    fn repeat_guessed(
        &mut self,
        r: &lang::Repeat,
        init: &[Node],
        outer: &[(i64, i64)],
        rounds: (i64, i64),
        record_ok: bool,
    ) -> Option<Repeat> {
        let d = self.scope.len();
        let mut guess: Vec<(i64, i64)> = init
            .iter()
            .map(|n| bounds(n, &mut outer.to_vec()))
            .collect();
        for _ in 0..GUESSES {
            self.scope.truncate(d);
            let made = self
                .repeat_with(r, init.to_vec(), Some(&guess), rounds, record_ok)
                .ok()?;
            // The last of the bounds is `rounds`'.
            let reached = repeat_bounds(&made, &mut outer.to_vec());
            if reached.len() != guess.len() + 1 {
                return None;
            }
            let within = guess
                .iter()
                .zip(&reached)
                .all(|(g, s)| g.0 <= s.0 && s.1 <= g.1);
            if within {
                return Some(made);
            }
            guess = guess
                .iter()
                .zip(&reached)
                .map(|(g, s)| (g.0.min(s.0), g.1.max(s.1)))
                .collect();
        }
        None
    }

    /// A `repeat` whose state variables are bound with `known` bounds (any, where None),
    /// `rounds` with its own.
    fn repeat_with(
        &mut self,
        r: &lang::Repeat,
        init: Vec<Node>,
        known: Option<&[(i64, i64)]>,
        rounds: (i64, i64),
        record_ok: bool,
    ) -> Result<Repeat, CompileError> {
        let d = self.scope.len();
        for (i, (name, ..)) in r.state.iter().enumerate() {
            self.scope
                .push((name.clone(), Slot::Num(known.map(|k| k[i]))));
        }
        self.scope.push(("rounds".into(), Slot::Num(Some(rounds))));
        let until = self.node(&r.until)?;
        self.record_ok = record_ok;
        let body = self.node(&r.body)?;
        let step = self.round(r, 0, d)?;
        Ok(Repeat {
            init,
            until,
            step,
            limit: r.limit,
            body,
        })
    }

    /// A round from its `j`-th `let` on: the `let`s, then the state's new values.
    fn round(&mut self, r: &lang::Repeat, j: usize, d: usize) -> Result<Node, CompileError> {
        let Some((name, bound)) = r.lets.get(j) else {
            return Ok(Node::Emit(self.updates(r, d)?));
        };
        let read_after = r.lets[j + 1..].iter().any(|(_, e)| reads_dice_of(e, name))
            || r.updates.iter().any(|(_, e, _)| reads_dice_of(e, name));
        if let Some(at) = read_after.then(|| self.varies(bound)).flatten() {
            return self.counted_var(name, (bound, at), &mut |s| s.round(r, j + 1, d));
        }
        let b = self.bind(name, bound)?;
        let rest = self.round(r, j + 1, d);
        self.unbind(&b);
        b.wrap(rest?, self.scope.len())
    }

    /// Every state variable's value after a round: its update, or itself.
    fn updates(&mut self, r: &lang::Repeat, d: usize) -> Result<Vec<Node>, CompileError> {
        let mut out: Vec<Option<Node>> = vec![None; r.state.len()];
        for (name, e, col) in &r.updates {
            let Some(i) = r.state.iter().position(|(m, ..)| m == name) else {
                return Err(CompileError {
                    col: *col,
                    message: format!(
                        "`{name}` is not a state variable of this `repeat`{}; its state variables are {}",
                        nearest_hint(name, r.state.iter().map(|(m, ..)| m.as_str())),
                        r.state.iter().map(|(m, ..)| m.as_str()).collect::<Vec<_>>().join(", ")
                    ),
                });
            };
            if out[i].is_some() {
                return Err(CompileError {
                    col: *col,
                    message: format!("`{name}` is updated twice in one round"),
                });
            }
            out[i] = Some(self.node(e)?);
        }
        Ok(out
            .into_iter()
            .enumerate()
            .map(|(i, n)| n.unwrap_or(Node::Var(d + i)))
            .collect())
    }
}

/// Whether the rounds roll dice whose count or sides is a value (`(a)d6`, `d(s)`): only
/// they are made once for every number their bounds allow, so only for them are the
/// state's bounds worth guessing ([`Compiler::repeat_guessed`]).
fn counts_vary(r: &lang::Repeat) -> bool {
    let mut found = false;
    let mut look = |e: &Expr| {
        if let Expr::Pool { groups, .. } = e {
            found |= groups
                .iter()
                .any(|g| !matches!(g.count, Expr::Num(_)) || g.die.sides.is_some());
        }
    };
    let rounds = r.lets.iter().map(|(_, e)| e);
    let updates = r.updates.iter().map(|(_, e, _)| e);
    for e in rounds.chain(updates).chain([&r.until, &r.body]) {
        lang::visit(e, &mut look);
    }
    found
}

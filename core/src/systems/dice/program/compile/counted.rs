//! Pool variables whose dice count (or sides) is a value: the dice held for every
//! number it can take, each with its own body ([`Node::CountedVar`]).

use super::*;

impl Compiler<'_> {
    /// Which of the numbers of `bound` (dice bound without a read) alone is a value
    /// (rolled, or a state that changes): a group's count (its place among the pool's
    /// numbers), or the die's sides of dice of one kind (1: a step die `d(s)` whose
    /// bounds are at most [`MAX_COUNTED_DICE`] sides, or not known). None for anything
    /// else, bound as its sum.
    pub(super) fn varies(&mut self, bound: &Expr) -> Option<usize> {
        let Expr::Pool {
            groups,
            agg: None,
            mods,
            ..
        } = bound
        else {
            return None;
        };
        if groups.iter().any(|g| g.deck) {
            return None;
        }
        // Each number of the pool by what it is: a group's count, a group's sides, or
        // a number of its modifiers (as `param_exprs` lists them).
        let kinds: Vec<(usize, bool)> = groups
            .iter()
            .enumerate()
            .flat_map(|(i, g)| {
                std::iter::once((i, true)).chain(g.die.sides.as_ref().map(|_| (i, false)))
            })
            .collect();
        let nodes: Vec<Result<Node, CompileError>> = param_exprs(groups, mods, &None)
            .into_iter()
            .map(|e| self.node(e))
            .collect();
        let fixed: Vec<bool> = nodes
            .iter()
            .map(|n| n.as_ref().is_ok_and(|n| constant(n).is_some()))
            .collect();
        let at = fixed.iter().position(|&f| !f)?;
        if fixed.iter().filter(|&&f| !f).count() != 1 {
            return None;
        }
        match kinds.get(at) {
            // A group's count, of one kind of dice or beside others (`[(d3)d6, 2d8]`).
            Some((_, true)) => Some(at),
            _ if groups.len() > 1 => None,
            _ => match (at, &groups[0].die.sides) {
                // Sides held as counts are: one body per number up to the most it takes,
                // the number's reach checked as a count's is (a round's state, whose bounds
                // are not known, by its exact distribution).
                (1, Some(_)) => {
                    let Ok(sides) = &nodes[1] else { return None };
                    let most = super::bounds(sides, &mut self.var_bounds()).1;
                    (most <= MAX_COUNTED_DICE || most == i64::MAX).then_some(1)
                }
                _ => None,
            },
        }
    }

    /// `let p = (n)d6 in BODY` whose body reads `p`'s dice while `n` is a value (`let p
    /// = (5 - s)d6 in ... p count 6 ... p sum`), or `let p = 3d(s) in BODY` while `s`
    /// is: the dice held as a pool variable for every number (`at`: which, as
    /// [`Compiler::varies`] says) it can take, each with its body
    /// ([`Node::CountedVar`]).
    pub(super) fn counted_var(
        &mut self,
        name: &str,
        (bound, at): (&Expr, usize),
        body: &mut dyn FnMut(&mut Self) -> Result<Node, CompileError>,
    ) -> Result<Node, CompileError> {
        let Expr::Pool {
            groups, mods, col, ..
        } = bound
        else {
            unreachable!("varies holds only of pools")
        };
        let params = self.params(groups, mods, &None)?;
        let mut vals: Vec<PoolNumber> = params
            .iter()
            .map(|p| PoolNumber::fixed(*p.as_ref().unwrap_or(&0)))
            .collect();
        let count = match params.into_iter().nth(at) {
            Some(Err(n)) => n,
            _ => unreachable!("varies: the number is a value"),
        };
        let (least, most) = super::bounds(&count, &mut self.var_bounds());
        let most = pools_for(most);
        let copies = self.copies.saturating_mul(most as u64 + 1);
        if copies > MAX_COPIES {
            return Err(CompileError {
                col: *col,
                message: format!(
                    "pool variables whose dice count is a value, one inside another, make the expression inside them {copies} times (each count up to {most} here): at most {MAX_COPIES}; read the dice where they are rolled (`(n)d6 count >= 5`)"
                ),
            });
        }
        let outer = std::mem::replace(&mut self.copies, copies);
        let mut bodies = Vec::with_capacity(most as usize + 1);
        let made = (|| {
            for k in 0..=most {
                // A number below its bounds never comes: its place holds nothing, and
                // its body is not made (`keep middle 2` of dice that are at least 3
                // is not refused for the 0, 1 or 2 dice it never holds).
                if k < least {
                    bodies.push(Node::Num(0));
                    continue;
                }
                vals[at] = PoolNumber::rolled(k);
                let spec = spec_of(groups, mods, &None, *col, &vals, self.symbols.as_ref())?;
                let binding = self.bind_dice(name, spec, *col)?;
                let r = body(self);
                self.unbind(&binding);
                bodies.push(binding.wrap(r?, self.scope.len())?);
            }
            Ok(())
        })();
        self.copies = outer;
        made?;
        Ok(Node::CountedVar(Box::new(count), bodies))
    }
}

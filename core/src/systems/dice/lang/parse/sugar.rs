//! Operators read as the language's own words: `abs(x)` and `a % b` become `let`s and
//! arithmetic, so both engines take them as they take those, and nothing below the
//! parser knows them.

use super::*;

/// The name `abs(x)` binds its value to: one no expression can write (it has a space).
const ABS_VALUE: &str = "abs value";

/// `a % b`: `a`'s remainder by `b`, from 0 up to `b` (`/` rounds down), each side
/// rolled once: `let` bindings and `a - b * (a / b)`.
pub(super) fn remainder(a: Box<Expr>, b: Box<Expr>) -> Expr {
    const VALUE: &str = "remainder value";
    const BY: &str = "remainder divisor";
    let name = |n: &str| Box::new(Expr::Name(n.into(), 0));
    let quotient = Expr::Bin(Op::Div, name(VALUE), name(BY));
    let taken = Expr::Bin(Op::Mul, name(BY), Box::new(quotient));
    let left = Expr::Bin(Op::Sub, name(VALUE), Box::new(taken));
    Expr::Let(
        VALUE.into(),
        a,
        Box::new(Expr::Let(BY.into(), b, Box::new(left))),
    )
}

impl Parser {
    /// `abs(x)` (at `abs`, a `(` next): x rolled once, read as its size, as `let v = x
    /// in max(v, -v)`.
    pub(super) fn abs(&mut self, depth: usize) -> Result<Expr, SyntaxError> {
        let col = self.col();
        // Past `abs` and `(`.
        self.advance();
        self.advance();
        let x = self.expr(depth + 1)?;
        self.expect_sym(")")?;
        let v = || Box::new(Expr::Name(ABS_VALUE.into(), col));
        let size = Expr::Bin(Op::Max, v(), Box::new(Expr::Neg(v())));
        Ok(Expr::Let(ABS_VALUE.into(), Box::new(x), Box::new(size)))
    }
}

//! The recursive-descent parser: text to [`Expr`], or a [`SyntaxError`] at a column
//! (the tokens from [`lex`]).

use super::*;

mod hint;
mod lex;
mod sugar;

use lex::{lex, Tok};
use sugar::remainder;

/// Whether two short texts (a keyword, a symbol) are the same, compared in place: every
/// level of the parse asks whether its operators come next, and a call to compare memory
/// for each was a twentieth of a long mechanic's parse.
#[inline]
fn same(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).all(|(x, y)| x == y)
}

/// How an operator joins its two sides into one expression.
type Join = fn(Box<Expr>, Box<Expr>) -> Expr;

pub(super) struct Parser {
    toks: Vec<(Tok, Col)>,
    at: usize,
}

/// The value of an expression made of numbers alone (`0`, `2 - 2`, `-(3 * 0)`), or None
/// where it rolls dice or reads a name.
fn constant(e: &Expr) -> Option<i64> {
    match e {
        Expr::Num(n) => Some(*n),
        Expr::Neg(a) => constant(a)?.checked_neg(),
        Expr::Bin(op, a, b) => {
            let (x, y) = (constant(a)?, constant(b)?);
            match op {
                Op::Add => x.checked_add(y),
                Op::Sub => x.checked_sub(y),
                Op::Mul => x.checked_mul(y),
                Op::Max => Some(x.max(y)),
                Op::Min => Some(x.min(y)),
                Op::Div | Op::Cmp(_) => None,
            }
        }
        _ => None,
    }
}

/// Longest expression, in characters, that any front end takes (a config's `roll`, the
/// command line's, Python's, the live page's dice box): the one limit, stated here. A
/// long mechanic (a battle to the end, weapon by weapon) runs to a thousand; the
/// nesting limit ([`MAX_DEPTH`]) is what keeps a hostile one off the stack.
pub const MAX_EXPRESSION_CHARS: usize = 16_384;

/// Parse one expression.
pub fn parse(text: &str) -> Result<Expr, SyntaxError> {
    if text.chars().count() > MAX_EXPRESSION_CHARS {
        return Err(SyntaxError {
            col: 0,
            message: format!("an expression of at most {MAX_EXPRESSION_CHARS} characters"),
        });
    }
    let mut p = Parser {
        toks: lex(text)?,
        at: 0,
    };
    let e = p.expr(0)?;
    match p.peek() {
        Tok::End => Ok(e),
        _ => Err(p.unexpected("an operator (+ - * / >= ...), a modifier or the end")),
    }
}

/// What starts a pool: a group of dice, a parenthesised expression that turned out not
/// to count dice (with the token it started at), or neither.
pub(super) enum Lead {
    Group(Group),
    Paren(Expr, usize),
    Nothing,
}

/// Deepest nesting of parentheses, `let` and `if` accepted (a hostile input cannot
/// overflow the stack).
pub(super) const MAX_DEPTH: usize = 64;

impl Parser {
    fn peek(&self) -> &Tok {
        &self.toks[self.at].0
    }

    fn col(&self) -> Col {
        self.toks[self.at].1
    }

    fn next(&mut self) -> (Tok, Col) {
        let t = self.toks[self.at].clone();
        self.advance();
        t
    }

    /// Past the next token, not copied (a word met is a `String`).
    fn advance(&mut self) {
        if self.at + 1 < self.toks.len() {
            self.at += 1;
        }
    }

    fn found(&self) -> String {
        match self.peek() {
            Tok::Int(n) => format!("`{n}`"),
            Tok::Word(w) => format!("`{w}`"),
            Tok::Dice(d) => format!("`{d}`"),
            Tok::Sym(s) => format!("`{s}`"),
            Tok::End => "the end".into(),
        }
    }

    fn unexpected(&self, expected: &str) -> SyntaxError {
        let hint = self.hint(expected);
        SyntaxError {
            col: self.col(),
            message: format!("expected {expected}, found {}{hint}", self.found()),
        }
    }

    fn is_word(&self, w: &str) -> bool {
        matches!(self.peek(), Tok::Word(x) if same(x, w))
    }

    fn is_sym(&self, s: &str) -> bool {
        matches!(self.peek(), Tok::Sym(x) if same(x, s))
    }

    /// Take `s` if it comes next.
    fn eat_sym(&mut self, s: &str) -> bool {
        let here = self.is_sym(s);
        if here {
            self.advance();
        }
        here
    }

    /// Take the word `w` if it comes next.
    fn eat_word(&mut self, w: &str) -> bool {
        let here = self.is_word(w);
        if here {
            self.advance();
        }
        here
    }

    /// The next token as `want` reads it, or an error that `expected` was wanted.
    /// The error stands one token back when the text has ended (`let` alone is
    /// "expected a name ..., found `let`").
    fn take<T>(
        &mut self,
        expected: &str,
        want: impl FnOnce(Tok) -> Option<T>,
    ) -> Result<T, SyntaxError> {
        let (tok, _) = self.next();
        want(tok).ok_or_else(|| {
            self.at -= 1;
            self.unexpected(expected)
        })
    }

    /// A name the text gives (a word of its own, not one of the language's).
    fn name(&mut self, expected: &str) -> Result<String, SyntaxError> {
        self.take(expected, |t| match t {
            Tok::Word(w) if !KEYWORDS.contains(&w.as_str()) => Some(w),
            _ => None,
        })
    }

    /// After an item of a list: `,` (true: another follows) or the list's closing
    /// `close` (false).
    fn another(&mut self, close: &str) -> Result<bool, SyntaxError> {
        if self.eat_sym(",") {
            return Ok(true);
        }
        self.expect_sym(close)?;
        Ok(false)
    }

    /// The comparison written next, if one is (not taken).
    fn comparison(&self) -> Option<Cmp> {
        match self.peek() {
            Tok::Sym("<=") => Some(Cmp::Le),
            Tok::Sym(">=") => Some(Cmp::Ge),
            Tok::Sym("<") => Some(Cmp::Lt),
            Tok::Sym(">") => Some(Cmp::Gt),
            Tok::Sym("==") => Some(Cmp::Eq),
            Tok::Sym("!=") => Some(Cmp::Ne),
            _ => None,
        }
    }

    /// One level of left-to-right operators, `a - b + c` or `a or b or c`: each operand
    /// read by `operand`, joined by the entry of `ops` whose symbol or word comes between.
    fn chain(
        &mut self,
        depth: usize,
        operand: fn(&mut Self, usize) -> Result<Expr, SyntaxError>,
        ops: &[(&str, Join)],
    ) -> Result<Expr, SyntaxError> {
        let mut a = operand(self, depth)?;
        while let Some((sym, join)) = ops.iter().find(|(s, _)| self.is_sym(s) || self.is_word(s)) {
            self.advance();
            let col = self.col();
            let b = operand(self, depth)?;
            // `d20 / 0` has no value: refused here, under the divisor, rather than given
            // one without a word. (A divisor that is 0 only on some rolls counts as 0 on
            // those rolls, as docs/dice-language.md says.)
            if *sym == "%" && constant(&b) == Some(0) {
                return Err(SyntaxError {
                    col,
                    message: "remainder by 0: this divisor is always 0; take the remainder by a number that is not 0".into(),
                });
            }
            if *sym == "/" && constant(&b) == Some(0) {
                return Err(SyntaxError {
                    col,
                    message: "division by 0: this divisor is always 0, so the division has no value; divide by a number that is not 0 (a divisor that is 0 only on some rolls counts as 0 there)".into(),
                });
            }
            a = join(Box::new(a), Box::new(b));
        }
        Ok(a)
    }

    fn expect_sym(&mut self, s: &str) -> Result<(), SyntaxError> {
        if self.eat_sym(s) {
            Ok(())
        } else {
            Err(self.unexpected(&format!("`{s}`")))
        }
    }

    fn expect_word(&mut self, w: &str) -> Result<(), SyntaxError> {
        if self.eat_word(w) {
            Ok(())
        } else {
            Err(self.unexpected_of(&format!("`{w}`"), &[w]))
        }
    }

    /// [`Parser::unexpected`] where the words that fit are known: a misspelling of one
    /// of them is hinted at it, not at the nearest word of the whole language.
    fn unexpected_of(&self, expected: &str, words: &[&str]) -> SyntaxError {
        let hint = match self.peek() {
            Tok::Word(w) => crate::config::reader::nearest_hint(w, words.iter().copied()),
            _ => String::new(),
        };
        if hint.is_empty() {
            return self.unexpected(expected);
        }
        SyntaxError {
            col: self.col(),
            message: format!("expected {expected}, found {}{hint}", self.found()),
        }
    }

    fn depth_check(&self, depth: usize) -> Result<(), SyntaxError> {
        if depth > MAX_DEPTH {
            return Err(SyntaxError {
                col: self.col(),
                message: format!("nesting deeper than {MAX_DEPTH} levels"),
            });
        }
        Ok(())
    }

    fn expr(&mut self, depth: usize) -> Result<Expr, SyntaxError> {
        self.depth_check(depth)?;
        if self.eat_word("let") {
            let col = self.col();
            let name = self.name("a name for the value")?;
            let mut names = vec![(name, col)];
            while self.eat_sym(",") {
                let c = self.col();
                let more = self.name("another name (`let a, b = 2d6 in ...`)")?;
                if names.iter().any(|(n, _)| *n == more) {
                    return Err(SyntaxError {
                        col: c,
                        message: format!(
                            "`{more}` is named twice: each card or die takes a name of its own"
                        ),
                    });
                }
                if names.len() == MAX_IN_ORDER {
                    return Err(SyntaxError {
                        col: c,
                        message: format!("at most {MAX_IN_ORDER} names in one `let`"),
                    });
                }
                names.push((more, c));
            }
            self.expect_sym("=")?;
            let bound = self.expr(depth + 1)?;
            self.expect_word("in")?;
            let body = self.expr(depth + 1)?;
            if names.len() > 1 {
                return super::in_order::in_order(names, bound, body, col);
            }
            let (name, _) = names.pop().expect("one name");
            return Ok(Expr::Let(name, Box::new(bound), Box::new(body)));
        }
        if self.eat_word("if") {
            let c = self.expr(depth + 1)?;
            self.expect_word("then")?;
            let a = self.expr(depth + 1)?;
            self.expect_word("else")?;
            let b = self.expr(depth + 1)?;
            return Ok(Expr::If(Box::new(c), Box::new(a), Box::new(b)));
        }
        if self.is_word("repeat") {
            return self.repeat(depth);
        }
        if self.is_word("reroll") {
            return self.choose(depth);
        }
        if self.is_word("choose") {
            return self.pick(depth);
        }
        self.or(depth)
    }

    /// `to maximise|minimise OBJECTIVE (in BODY)?`, after a choice's dice.
    fn goal(&mut self, depth: usize) -> Result<(Goal, Expr, Option<Expr>), SyntaxError> {
        self.expect_word("to")?;
        let goal = match self.peek() {
            Tok::Word(w) if w == "maximise" || w == "maximize" => Goal::Maximise,
            Tok::Word(w) if w == "minimise" || w == "minimize" => Goal::Minimise,
            _ => {
                return Err(self.unexpected_of(
                    "`maximise` or `minimise`",
                    &["maximise", "minimise", "maximize", "minimize"],
                ))
            }
        };
        self.advance();
        let objective = self.expr(depth + 1)?;
        let body = if self.eat_word("in") {
            Some(self.expr(depth + 1)?)
        } else {
            None
        };
        Ok((goal, objective, body))
    }

    /// `choose NAME = K, ... from DICE (only COND)? to maximise|minimise OBJ (in BODY)?`
    fn pick(&mut self, depth: usize) -> Result<Expr, SyntaxError> {
        let col = self.col();
        self.advance();
        let mut roles = Vec::new();
        loop {
            let at = self.col();
            let name =
                self.name("a name for the dice chosen (`choose total = 2, effect = 1 from ...`)")?;
            self.expect_sym("=")?;
            let k = match self.peek() {
                Tok::Int(k) if (1..=12).contains(k) => *k as u32,
                _ => return Err(self.unexpected("how many dice it takes, 1 to 12")),
            };
            self.advance();
            if roles
                .iter()
                .any(|(n, _, _): &(String, u32, Col)| *n == name)
            {
                return Err(SyntaxError {
                    col: at,
                    message: format!("`{name}` is chosen twice"),
                });
            }
            roles.push((name, k, at));
            if !self.eat_sym(",") {
                break;
            }
        }
        if roles.len() > MAX_ROLES {
            return Err(SyntaxError {
                col,
                message: format!("a `choose` hands dice to at most {MAX_ROLES} roles"),
            });
        }
        self.expect_word("from")?;
        let pool = self.pool(depth + 1)?;
        let only = self.only()?;
        let (goal, objective, body) = self.goal(depth)?;
        Ok(Expr::Pick(Box::new(Pick {
            roles,
            pool,
            only,
            goal,
            objective,
            body,
            col,
        })))
    }

    /// `reroll NAME = DICE (twice | N times)? to maximise|minimise OBJECTIVE (in BODY)?`
    fn choose(&mut self, depth: usize) -> Result<Expr, SyntaxError> {
        let col = self.col();
        self.advance();
        let name = self.name("a name for the dice (`reroll p = 5d6 to maximise ...`)")?;
        self.expect_sym("=")?;
        let pool = self.expr(depth + 1)?;
        let rerolls = if self.eat_word("twice") {
            2
        } else if let Tok::Int(n) = self.peek() {
            let n = *n;
            let at = self.col();
            self.advance();
            self.expect_word("times")?;
            if !(1..=MAX_REROLLS as i64).contains(&n) {
                return Err(SyntaxError {
                    col: at,
                    message: format!("rerolls from 1 to {MAX_REROLLS} times, not {n}"),
                });
            }
            n as u32
        } else {
            1
        };
        let (goal, objective, body) = self.goal(depth)?;
        Ok(Expr::Choose(Box::new(Choose {
            name,
            pool,
            rerolls,
            goal,
            objective,
            body,
            col,
        })))
    }

    fn or(&mut self, depth: usize) -> Result<Expr, SyntaxError> {
        self.chain(depth, Self::and, &[("or", Expr::Or)])
    }

    fn and(&mut self, depth: usize) -> Result<Expr, SyntaxError> {
        self.chain(depth, Self::not, &[("and", Expr::And)])
    }

    fn not(&mut self, depth: usize) -> Result<Expr, SyntaxError> {
        if self.eat_word("not") {
            self.depth_check(depth + 1)?;
            return Ok(Expr::Not(Box::new(self.not(depth + 1)?)));
        }
        self.compare(depth)
    }

    /// `NAME = EXPR` (a state variable and its value).
    fn assignment(&mut self, depth: usize) -> Result<(String, Expr, Col), SyntaxError> {
        let col = self.col();
        let name = self.name("a state variable's name")?;
        self.expect_sym("=")?;
        Ok((name, self.expr(depth + 1)?, col))
    }

    fn repeat(&mut self, depth: usize) -> Result<Expr, SyntaxError> {
        let col = self.col();
        self.advance();
        let mut state = vec![self.assignment(depth)?];
        while self.eat_sym(",") {
            state.push(self.assignment(depth)?);
        }
        if state.len() > MAX_STATE {
            return Err(SyntaxError {
                col,
                message: format!("a `repeat` keeps at most {MAX_STATE} state variables"),
            });
        }
        self.expect_word("until")?;
        let until = self.expr(depth + 1)?;
        self.expect_word("do")?;
        let mut lets = Vec::new();
        while self.eat_word("let") {
            let (name, bound, _) = self.assignment(depth)?;
            self.expect_word("in")?;
            lets.push((name, bound));
        }
        let mut updates = vec![self.assignment(depth)?];
        while self.eat_sym(",") {
            updates.push(self.assignment(depth)?);
        }
        let mut limit = DEFAULT_LIMIT;
        if self.eat_word("limit") {
            limit = self.take(
                &format!("a number of rounds from 1 to {MAX_LIMIT}"),
                |t| match t {
                    Tok::Int(n) if (1..=MAX_LIMIT as i64).contains(&n) => Some(n as u32),
                    _ => None,
                },
            )?;
        }
        if !self.eat_word("then") {
            return Err(self.unexpected("`,` and another update, `limit N` or `then`"));
        }
        let body = self.expr(depth + 1)?;
        Ok(Expr::Repeat(Box::new(Repeat {
            state,
            until,
            lets,
            updates,
            limit,
            body,
            col,
        })))
    }

    fn compare(&mut self, depth: usize) -> Result<Expr, SyntaxError> {
        let a = self.sum(depth)?;
        match self.comparison() {
            Some(c) => {
                self.advance();
                let b = self.sum(depth)?;
                Ok(Expr::Bin(Op::Cmp(c), Box::new(a), Box::new(b)))
            }
            None => Ok(a),
        }
    }

    fn sum(&mut self, depth: usize) -> Result<Expr, SyntaxError> {
        self.chain(
            depth,
            Self::product,
            &[
                ("+", |a, b| Expr::Bin(Op::Add, a, b)),
                ("-", |a, b| Expr::Bin(Op::Sub, a, b)),
            ],
        )
    }

    fn product(&mut self, depth: usize) -> Result<Expr, SyntaxError> {
        self.chain(
            depth,
            Self::unary,
            &[
                ("*", |a, b| Expr::Bin(Op::Mul, a, b)),
                ("/", |a, b| Expr::Bin(Op::Div, a, b)),
                ("%", remainder),
            ],
        )
    }

    fn unary(&mut self, depth: usize) -> Result<Expr, SyntaxError> {
        if self.eat_sym("-") {
            self.depth_check(depth + 1)?;
            return Ok(Expr::Neg(Box::new(self.unary(depth + 1)?)));
        }
        self.pool(depth)
    }

    /// One face's value in braces: a number, a name (`hit`, `crit=2`, `blank`), or
    /// several names summed (`success+advantage`); the names go into `written`.
    fn face_value(
        &mut self,
        neg: bool,
        written: &mut Vec<(String, u32)>,
    ) -> Result<i64, SyntaxError> {
        Ok(match self.next() {
            (Tok::Int(n), _) => n,
            (Tok::Word(w), _) if !neg && self.is_sym("+") => {
                // `success+advantage`: several symbols on one face, its value
                // the sum of theirs.
                let mut v = 0;
                let mut w = w;
                loop {
                    v += !NOTHING.contains(&w.to_ascii_lowercase().as_str()) as i64;
                    match written.iter_mut().find(|(n, _)| *n == w) {
                        Some((_, c)) => *c += 1,
                        None => written.push((w.clone(), 1)),
                    }
                    if !self.eat_sym("+") {
                        break;
                    }
                    w = self.take("a symbol's name after `+`", |t| match t {
                        Tok::Word(x) => Some(x),
                        _ => None,
                    })?;
                }
                v
            }
            (Tok::Word(w), _) if !neg => {
                written.push((w.clone(), 1));
                if self.eat_sym("=") {
                    let neg = self.eat_sym("-");
                    let n = self.take("the face's value", |t| match t {
                        Tok::Int(n) => Some(n),
                        _ => None,
                    })?;
                    if neg {
                        -n
                    } else {
                        n
                    }
                } else if NOTHING.contains(&w.to_ascii_lowercase().as_str()) {
                    0
                } else {
                    1
                }
            }
            _ => {
                self.at -= 1;
                return Err(self.unexpected("a face: a number or a name"));
            }
        })
    }

    /// A die after `d`: `6`, `F`, `%`, or `{faces}`.
    fn die(&mut self, d: &str) -> Result<Die, SyntaxError> {
        let sides = &d[1..];
        if sides.is_empty() && self.eat_sym("(") {
            let e = self.expr(1)?;
            self.expect_sym(")")?;
            return Ok(Die {
                faces: Vec::new(),
                text: "d(...)".into(),
                sides: Some(Box::new(e)),
                names: Vec::new(),
            });
        }
        let mut names: Vec<Vec<(String, u32)>> = Vec::new();
        let faces: Vec<i64> = match sides {
            "F" => vec![-1, 0, 1],
            "%" => (1..=100).collect(),
            "" => {
                self.expect_sym("{")?;
                let mut faces = Vec::new();
                loop {
                    let neg = self.eat_sym("-");
                    let mut written: Vec<(String, u32)> = Vec::new();
                    let v = self.face_value(neg, &mut written)?;
                    // One symbol: as many of it as the face's value (`blank` none,
                    // `crit=2` two).
                    if let [(_, c)] = written.as_mut_slice() {
                        *c = v.max(0) as u32;
                    }
                    // `face * N`: N copies (a deck's cards, a die's repeated faces).
                    let copies = if self.eat_sym("*") {
                        self.take("how many copies, 1 to 1,000", |t| match t {
                            Tok::Int(n) if (1..=1_000).contains(&n) => Some(n as usize),
                            _ => None,
                        })?
                    } else {
                        1
                    };
                    for _ in 0..copies {
                        faces.push(if neg { -v } else { v });
                        names.push(written.clone());
                    }
                    if faces.len() > 1_000 {
                        return Err(self.unexpected("at most 1,000 faces"));
                    }
                    if !self.another("}")? {
                        break;
                    }
                }
                faces
            }
            n => {
                let s = n.parse::<i64>().ok().filter(|s| (1..=1_000).contains(s));
                match s {
                    Some(s) => (1..=s).collect(),
                    None => {
                        return Err(SyntaxError {
                            col: self.toks[self.at - 1].1,
                            message: format!("`d{n}`: a die has 1 to 1,000 sides"),
                        })
                    }
                }
            }
        };
        Ok(Die {
            faces,
            text: d.to_string(),
            sides: None,
            names,
        })
    }

    /// `NdS`, `dS`, `(expr)dS`, as one group. A parenthesised expression with no die
    /// after it is handed back as it was parsed, never parsed again: re-parsing it as an
    /// atom made each level of nesting cost twice the one inside (40 levels never ended).
    fn group(&mut self, depth: usize) -> Result<Lead, SyntaxError> {
        let start = self.at;
        let (count, paren) = match self.peek().clone() {
            Tok::Dice(d) if d.starts_with('d') => {
                self.advance();
                let die = self.die(&d)?;
                return Ok(Lead::Group(Group {
                    count: Expr::Num(1),
                    die,
                    deck: false,
                }));
            }
            Tok::Word(w) if w == "deck" => {
                // `deck{faces} draw N`: N cards dealt from the deck.
                self.advance();
                if !self.is_sym("{") {
                    return Err(
                        self.unexpected("the deck's cards, e.g. `deck{0*6, 1*5, -1*5, 2, -2}`")
                    );
                }
                let mut die = self.die("d")?;
                die.text = "deck".into();
                self.expect_word("draw")?;
                let Some(count) = self.number(depth)? else {
                    return Err(self.unexpected("how many cards are drawn, e.g. `draw 2`"));
                };
                return Ok(Lead::Group(Group {
                    count,
                    die,
                    deck: true,
                }));
            }
            Tok::Int(n) => {
                self.advance();
                (Expr::Num(n), false)
            }
            Tok::Sym("(") => {
                self.advance();
                let e = self.expr(depth + 1)?;
                self.expect_sym(")")?;
                (e, true)
            }
            _ => return Ok(Lead::Nothing),
        };
        // `4d6` lexes as Int(4) then Dice("d6") only when written apart; `4d6` is one
        // word starting with a digit, handled by the lexer as Int + Dice.
        match self.peek().clone() {
            Tok::Dice(d) => {
                self.advance();
                let die = self.die(&d)?;
                Ok(Lead::Group(Group {
                    count,
                    die,
                    deck: false,
                }))
            }
            _ if paren => Ok(Lead::Paren(count, start)),
            _ => {
                self.at = start;
                Ok(Lead::Nothing)
            }
        }
    }

    /// A condition: `>= 7`, `10` (equal), `>= target` (a stat), `>= (dc - 2)`, `max`,
    /// `min`.
    fn cond(&mut self, optional: bool) -> Result<Option<CondAst>, SyntaxError> {
        let cmp = self.comparison();
        if cmp.is_some() {
            self.advance();
        }
        if self.eat_word("max") {
            return Ok(Some(CondOf::Max));
        }
        if self.eat_word("min") {
            return Ok(Some(CondOf::Min));
        }
        if cmp.is_none() && self.eat_word("on") {
            return self.faces_named().map(Some);
        }
        if cmp.is_none() && self.eat_word("even") {
            return Ok(Some(CondOf::Even));
        }
        if cmp.is_none() && self.eat_word("odd") {
            return Ok(Some(CondOf::Odd));
        }
        // A bare `-` after a word whose condition may be left out is the minus of the
        // expression: `d6 explode - 1` is an exploding d6 less 1, not a d6 that explodes
        // on -1 (which is `explode == -1`).
        let neg = (cmp.is_some() || !optional) && self.eat_sym("-");
        let value = match self.peek().clone() {
            Tok::Int(n) => {
                self.advance();
                Expr::Num(n)
            }
            // A name only after a comparison: `count >= target` (bare, `count target`
            // would read as the next word of the expression).
            Tok::Word(w) if cmp.is_some() && !KEYWORDS.contains(&w.as_str()) => {
                let col = self.col();
                self.advance();
                Expr::Name(w, col)
            }
            Tok::Sym("(") => {
                self.advance();
                let e = self.expr(1)?;
                self.expect_sym(")")?;
                e
            }
            _ if optional && cmp.is_none() && !neg => return Ok(None),
            _ => {
                return Err(self
                    .unexpected("a face to compare with, e.g. `>= 7`, `10`, `>= target`, `max`"))
            }
        };
        let value = if neg {
            Expr::Neg(Box::new(value))
        } else {
            value
        };
        Ok(Some(CondOf::Cmp(cmp.unwrap_or(Cmp::Eq), Box::new(value))))
    }

    /// The faces after `on`: `on 10, 20` (each a whole number, as far as the commas go:
    /// in a function's arguments, `max((d20 explode on 10, 20), 5)`) or `on {10, 20}`.
    fn faces_named(&mut self) -> Result<CondAst, SyntaxError> {
        let braced = self.eat_sym("{");
        let mut faces = Vec::new();
        loop {
            let neg = self.eat_sym("-");
            match *self.peek() {
                Tok::Int(n) => {
                    self.advance();
                    faces.push(if neg { -n } else { n });
                }
                _ => return Err(self.unexpected("a face, e.g. `explode on 10, 20`")),
            }
            // Another face follows a comma only where a number does (`explode on 10, 20,
            // b = 3` in a `repeat` ends at `b`).
            let more = matches!(self.toks.get(self.at + 1).map(|t| &t.0), Some(Tok::Int(_)))
                || matches!(
                    (self.toks.get(self.at + 1), self.toks.get(self.at + 2)),
                    (Some((Tok::Sym("-"), _)), Some((Tok::Int(_), _)))
                );
            if matches!(self.peek(), Tok::Sym(",")) && (braced || more) {
                self.advance();
                continue;
            }
            break;
        }
        if braced {
            self.expect_sym("}")?;
        }
        let mut sorted = faces.clone();
        sorted.sort_unstable();
        sorted.dedup();
        super::Faces::of(&sorted).map(CondOf::On).ok_or_else(|| {
            self.unexpected(&format!("at most {} faces after `on`", super::Faces::MOST))
        })
    }

    /// A number a modifier takes: `3`, a name (`keep highest k`) or `(EXPR)`; None when
    /// none is written.
    fn number(&mut self, depth: usize) -> Result<Option<Expr>, SyntaxError> {
        Ok(match self.peek().clone() {
            Tok::Int(n) => {
                self.advance();
                Some(Expr::Num(n))
            }
            Tok::Word(w) if !KEYWORDS.contains(&w.as_str()) => {
                let col = self.col();
                self.advance();
                Some(Expr::Name(w, col))
            }
            Tok::Sym("(") => {
                self.advance();
                self.depth_check(depth + 1)?;
                let e = self.expr(depth + 1)?;
                self.expect_sym(")")?;
                Some(e)
            }
            _ => None,
        })
    }

    fn pool(&mut self, depth: usize) -> Result<Expr, SyntaxError> {
        let col = self.col();
        let mut groups = Vec::new();
        let atom = if self.eat_sym("[") {
            loop {
                match self.group(depth)? {
                    Lead::Group(g) => groups.push(g),
                    Lead::Paren(_, start) => {
                        self.at = start;
                        return Err(self.unexpected("dice, e.g. `2d6`"));
                    }
                    Lead::Nothing => return Err(self.unexpected("dice, e.g. `2d6`")),
                }
                if !self.another("]")? {
                    break;
                }
            }
            None
        } else {
            match self.group(depth)? {
                Lead::Group(g) => {
                    groups.push(g);
                    None
                }
                Lead::Paren(e, _) => Some(e),
                Lead::Nothing => Some(self.atom(depth)?),
            }
        };
        let mut mods = Vec::new();
        loop {
            let m = if self.eat_word("explode") {
                ModOf::Explode(self.cond(true)?.unwrap_or(CondOf::Max))
            } else if self.eat_word("again") {
                ModOf::Again(self.cond(true)?.unwrap_or(CondOf::Max))
            } else if self.eat_word("depth") {
                let expected = format!("the most extra rolls of a chain, 0 to {MAX_CHAIN}");
                match self.number(depth)? {
                    Some(Expr::Num(n)) if n > MAX_CHAIN as i64 => {
                        self.at -= 1;
                        return Err(self.unexpected(&expected));
                    }
                    Some(e) => ModOf::Depth(Box::new(e)),
                    None => return Err(self.unexpected(&expected)),
                }
            } else if self.eat_word("reroll") {
                let c = self.cond(false)?.unwrap_or(CondOf::Min);
                let always = self.eat_word("always");
                if !always {
                    self.eat_word("once");
                }
                ModOf::Reroll(c, always)
            } else if self.is_word("keep") || self.is_word("drop") {
                let keep = self.is_word("keep");
                self.advance();
                if keep && self.eat_word("middle") {
                    let n = Box::new(self.number(depth)?.unwrap_or(Expr::Num(1)));
                    ModOf::Middle(n)
                } else {
                    let end = if self.is_word("highest") {
                        End::Highest
                    } else if self.is_word("lowest") {
                        End::Lowest
                    } else {
                        return Err(self.no_end(keep));
                    };
                    self.advance();
                    let n = Box::new(self.number(depth)?.unwrap_or(Expr::Num(1)));
                    if keep {
                        ModOf::Keep(end, n)
                    } else {
                        ModOf::Drop(end, n)
                    }
                }
            } else {
                break;
            };
            let keep_or_drop = matches!(m, ModOf::Keep(..) | ModOf::Drop(..) | ModOf::Middle(_));
            let on_name = matches!(atom, Some(Expr::Name(..)));
            if groups.is_empty() && !(on_name && keep_or_drop) {
                return Err(SyntaxError {
                    col,
                    message: if on_name {
                        "a pool variable is read with `keep`, `drop`, `sum`, `count`, `highest`, `lowest` or `maxset`: its dice are already rolled".into()
                    } else {
                        "modifiers apply to dice, e.g. `4d6 drop lowest`".into()
                    },
                });
            }
            mods.push(m);
        }
        if let (Some(Expr::Name(name, c)), true, true) =
            (&atom, mods.is_empty(), self.is_word("sides"))
        {
            self.advance();
            return Ok(Expr::Sides(name.clone(), *c));
        }
        let agg = self.read_after(&mut mods)?;
        match atom {
            Some(Expr::Name(name, c)) if agg.is_some() || !mods.is_empty() => {
                if mods.len() > 1 {
                    return Err(SyntaxError {
                        col,
                        message: "one `keep` or `drop` per read".into(),
                    });
                }
                Ok(Expr::Read {
                    name,
                    keep: mods.pop().map(Box::new),
                    agg,
                    col: c,
                })
            }
            Some(a) => {
                if agg.is_some() {
                    // `(20d6 reroll 1) count >= 5`: parentheses make a number of the
                    // dice inside, so the read finds no dice; say how to keep them dice.
                    let parenthesised = self
                        .toks
                        .iter()
                        .any(|(t, c)| *c == col && *t == Tok::Sym("("));
                    let message = if matches!(a, Expr::Versus { .. }) {
                        // `cancel(3d6, 2d6) middle`: a read that keeps dice.
                        "the dice `pairs`, `beats` or `cancel` leave are read by one word after it (`sum`, `count ...`, `highest`, `lowest`, `maxset`, `straight`, a shape), e.g. `cancel(9d10, 8d10) highest` (`middle`, and a count after `highest` or `lowest`, keep some of them first, which is not done to the dice left)"
                    } else if parenthesised {
                        "a read (`sum`, `count`, `highest`, ...) needs dice, and parentheses make a number of the dice inside: leave them out (`20d6 reroll 1 count >= 5`) or name the dice first (`let p = 20d6 reroll 1 in p count >= 5`)"
                    } else {
                        "a read (`sum`, `count`, `highest`, `lowest`, `middle`, `maxset`, ...) reads dice, e.g. `5d10 count >= 7`"
                    };
                    return Err(SyntaxError {
                        col,
                        message: message.into(),
                    });
                }
                Ok(a)
            }
            None => Ok(Expr::Pool {
                groups,
                mods,
                agg,
                col,
            }),
        }
    }

    /// `only COND` after a side of `pairs`, `beats` or `cancel`: the dice that take part.
    fn only(&mut self) -> Result<Option<CondAst>, SyntaxError> {
        if !self.eat_word("only") {
            return Ok(None);
        }
        self.cond(false)
    }

    /// The read after a pool's modifiers: `sum`, `count ...` and the rest, or `middle`,
    /// `highest K`, `lowest K` and `middle K`, which keep that many dice (pushed onto
    /// `mods`) and read their sum.
    fn read_after(&mut self, mods: &mut Vec<ModAst>) -> Result<Option<AggAst>, SyntaxError> {
        // `3d20 middle`: the middle die, as `highest` and `lowest` read the ends: `keep
        // middle 1`, read by its sum (of an even number of dice, the lower of the two).
        let kept = mods
            .iter()
            .any(|m| matches!(m, ModOf::Keep(..) | ModOf::Drop(..) | ModOf::Middle(_)));
        Ok(if self.is_word("middle") {
            if kept {
                return Err(SyntaxError {
                    col: self.col(),
                    message: "one `keep` or `drop` per pool, and `middle` is `keep middle 1`"
                        .into(),
                });
            }
            self.advance();
            let k = self.count_after_read().unwrap_or(1);
            mods.push(ModOf::Middle(Box::new(Expr::Num(k))));
            Some(AggOf::Sum)
        } else {
            let read = self.read_of_dice()?;
            // `3d6 highest 2`: the two highest dice summed, `keep highest 2` as written
            // the way `highest` reads one.
            let end = match read {
                Some(AggOf::Highest) => Some(End::Highest),
                Some(AggOf::Lowest) => Some(End::Lowest),
                _ => None,
            };
            match end.and_then(|e| Some((e, self.count_after_read()?))) {
                Some((end, k)) => {
                    if kept {
                        self.at -= 1;
                        return Err(SyntaxError {
                            col: self.col(),
                            message: "one `keep` or `drop` per pool: a count after `highest` or `lowest` keeps that many dice".into(),
                        });
                    }
                    mods.push(ModOf::Keep(end, Box::new(Expr::Num(k))));
                    Some(AggOf::Sum)
                }
                _ => read,
            }
        })
    }

    /// A whole number right after `highest`, `lowest` or `middle`: how many dice the
    /// read keeps and sums.
    fn count_after_read(&mut self) -> Option<i64> {
        match *self.peek() {
            Tok::Int(k) => {
                self.advance();
                Some(k)
            }
            _ => None,
        }
    }

    /// A read of dice (`sum`, `count ...`, `highest`, `lowest`, `maxset`), if one is written.
    fn read_of_dice(&mut self) -> Result<Option<AggAst>, SyntaxError> {
        Ok(if self.eat_word("sum") {
            Some(AggOf::Sum)
        } else if self.eat_word("count") {
            // `count on 1, 4`: faces named one by one, as after `explode` (a face named
            // `on` is still counted by `count on` with no face after it, and by `count on
            // - 1`, the count less 1: a minus is a face's only written against its
            // number, `count on -1, 1`).
            let next = |k: usize| self.toks.get(self.at + k);
            let faces_follow = match (next(1), next(2)) {
                (Some((Tok::Int(_) | Tok::Sym("{"), _)), _) => true,
                (Some((Tok::Sym("-"), minus)), Some((Tok::Int(_), n))) => *n == minus + 1,
                _ => false,
            };
            match self.peek().clone() {
                Tok::Word(w) if w == "on" && faces_follow => {
                    Some(AggOf::Count(self.cond(false)?.unwrap_or(CondOf::Max)))
                }
                // `count even`, `count odd`: the faces by their parity (not symbols).
                Tok::Word(w) if w == "even" || w == "odd" => {
                    Some(AggOf::Count(self.cond(false)?.unwrap_or(CondOf::Max)))
                }
                // `count success`: a symbol of named faces (a bare name; `count >= w`
                // compares with a value).
                Tok::Word(w) if !KEYWORDS.contains(&w.as_str()) => {
                    let col = self.col();
                    self.advance();
                    Some(AggOf::Tally(Box::new(Expr::Name(w, col))))
                }
                _ => Some(AggOf::Count(self.cond(false)?.unwrap_or(CondOf::Max))),
            }
        } else if self.eat_word("highest") {
            Some(AggOf::Highest)
        } else if self.eat_word("lowest") {
            Some(AggOf::Lowest)
        } else if self.eat_word("maxset") {
            Some(AggOf::MaxSet)
        } else if self.eat_word("straight") {
            Some(AggOf::Straight)
        } else if let Some(id) = match self.peek() {
            Tok::Word(w) => super::super::shapes::by_word(w),
            _ => None,
        } {
            let shape = super::super::shapes::SHAPES[id as usize];
            self.advance();
            let k = match shape.number() {
                None => 0,
                Some(least) => match self.peek().clone() {
                    Tok::Int(k) if k >= least => {
                        self.advance();
                        k
                    }
                    _ => {
                        return Err(self.unexpected(&format!(
                            "a whole number from {least} after `{}` ({}), e.g. `5d6 {} 2`",
                            shape.word(),
                            shape.meaning(),
                            shape.word()
                        )))
                    }
                },
            };
            Some(AggOf::Shape(super::super::shapes::ShapeRead { id, k }))
        } else {
            None
        })
    }

    /// `allocate(models = M, wounds = W, hits = H, damage = D, ... [, spill]) [then
    /// BODY]`: hits, weapon by weapon in order, each dealing its damage (rolled per hit)
    /// to a unit of M models of W wounds, one model at a time; damage past a model's
    /// last wound is lost unless `spill`. Written as the `repeat` it is: one hit per
    /// round, the state the unit and the hits left. BODY reads `killed`, `wounds_left`
    /// and `lost` (default: `killed`).
    fn allocate(&mut self, depth: usize) -> Result<Expr, SyntaxError> {
        let col = self.col();
        self.advance();
        self.expect_sym("(")?;
        let (mut models, mut wounds, mut spill) = (None, None, false);
        let mut weapons: Vec<(Expr, Option<Expr>)> = Vec::new();
        loop {
            let at = self.col();
            let key = self.take(
                "`models =`, `wounds =`, `hits =`, `damage =` or `spill`",
                |t| match t {
                    Tok::Word(w) => Some(w),
                    _ => None,
                },
            )?;
            if key == "spill" {
                spill = true;
            } else {
                self.expect_sym("=")?;
                let e = self.expr(depth + 1)?;
                match key.as_str() {
                    "models" => models = Some(e),
                    "wounds" => wounds = Some(e),
                    "hits" => weapons.push((e, None)),
                    "damage" => match weapons.last_mut() {
                        Some((_, d @ None)) => *d = Some(e),
                        _ => {
                            return Err(SyntaxError {
                                col: at,
                                message: "`damage =` follows its weapon's `hits =`".into(),
                            })
                        }
                    },
                    other => {
                        return Err(SyntaxError {
                            col: at,
                            message: format!(
                                "`{other}`: `allocate` takes `models =`, `wounds =`, then `hits =` and `damage =` per weapon, and `spill`{}",
                                crate::config::reader::nearest_hint(other, ["models", "wounds", "hits", "damage", "spill"].into_iter())
                            ),
                        })
                    }
                }
            }
            if !self.another(")")? {
                break;
            }
        }
        let (Some(models), Some(wounds)) = (models, wounds) else {
            return Err(SyntaxError {
                col,
                message: "`allocate` needs `models = N` and `wounds = N` (each model's wounds)"
                    .into(),
            });
        };
        if weapons.is_empty() || weapons.len() > MAX_WEAPONS {
            return Err(SyntaxError {
                col,
                message: format!(
                    "`allocate` takes 1 to {MAX_WEAPONS} weapons, each `hits = ..., damage = ...`"
                ),
            });
        }
        let body = if self.eat_word("then") {
            self.expr(depth + 1)?
        } else {
            Expr::Name("killed".into(), col)
        };
        let weapons: Vec<(Expr, Expr)> = weapons
            .into_iter()
            .map(|(h, d)| (h, d.unwrap_or(Expr::Num(1))))
            .collect();
        Ok(allocation(models, wounds, weapons, spill, body, col))
    }

    /// `{ NAME = EXPR, ... }`: named results.
    fn record(&mut self, depth: usize) -> Result<Expr, SyntaxError> {
        let col = self.col();
        self.advance();
        let mut fields: Vec<(String, Expr, Col)> = Vec::new();
        loop {
            let at = self.col();
            let name = self.name("a result's name, e.g. `{ hits = 3d6 count >= 5 }`")?;
            if fields.iter().any(|(n, ..)| *n == name) {
                return Err(SyntaxError {
                    col: at,
                    message: format!("`{name}` is named twice in one record"),
                });
            }
            self.expect_sym("=")?;
            fields.push((name, self.expr(depth + 1)?, at));
            if fields.len() > MAX_FIELDS {
                return Err(SyntaxError {
                    col: at,
                    message: format!("a record has at most {MAX_FIELDS} results"),
                });
            }
            if self.eat_sym(",") {
                continue;
            }
            if !self.eat_sym("}") {
                return Err(self.unexpected("`,` and another result, or `}`"));
            }
            return Ok(Expr::Record(fields, col));
        }
    }

    /// `cancel(A, B, CMP)`'s comparison: how a die of A must stand to a die of B to be
    /// cancelled by it (`==`: the same face; `<=`: at or below it; `<`: below it).
    fn cancel_by(&mut self) -> Result<(Versus, bool), SyntaxError> {
        for (sym, by) in [
            ("==", (Versus::Cancel, false)),
            ("<=", (Versus::CancelBelow, true)),
            ("<", (Versus::CancelBelow, false)),
        ] {
            if self.eat_sym(sym) {
                return Ok(by);
            }
        }
        Err(self.unexpected(
            "how a die of the first pool must stand to the second's to be cancelled: `==` (the same face), `<=` (at or below it) or `<` (below it)",
        ))
    }

    fn atom(&mut self, depth: usize) -> Result<Expr, SyntaxError> {
        if self.is_word("pairs") || self.is_word("beats") || self.is_word("cancel") {
            let col = self.col();
            let kind = if self.is_word("pairs") {
                Versus::Pairs
            } else if self.is_word("beats") {
                Versus::Beats
            } else {
                Versus::Cancel
            };
            self.advance();
            self.expect_sym("(")?;
            let a = self.pool(depth + 1)?;
            let only_a = self.only()?;
            self.expect_sym(",")?;
            let b = self.pool(depth + 1)?;
            let only_b = self.only()?;
            let (kind, ties) = match kind {
                Versus::Cancel if self.eat_sym(",") => self.cancel_by()?,
                Versus::Cancel => (Versus::Cancel, false),
                _ if self.eat_sym(",") => {
                    self.expect_word("ties")?;
                    (kind, true)
                }
                _ => (kind, false),
            };
            self.expect_sym(")")?;
            for e in [&a, &b] {
                if !matches!(e, Expr::Pool { agg: None, .. } | Expr::Name(..)) {
                    return Err(SyntaxError {
                        col,
                        message: "`pairs`, `beats` and `cancel` set two pools of dice (or pool variables) against each other, e.g. pairs(3d6, 2d6)".into(),
                    });
                }
            }
            // The first side's dice left, read: `cancel(A, B) highest`.
            let read = self.read_of_dice()?;
            return Ok(Expr::Versus {
                kind,
                a: Box::new(a),
                b: Box::new(b),
                ties,
                col,
                only: Box::new([only_a, only_b]),
                read,
            });
        }
        if self.is_sym("{") {
            return self.record(depth);
        }
        if self.is_word("allocate") {
            return self.allocate(depth);
        }
        // `abs(x)`: x rolled once, read as its size.
        if self.is_word("abs") && matches!(self.toks.get(self.at + 1), Some((Tok::Sym("("), _))) {
            return self.abs(depth);
        }
        // `max(a, b, ...)`, `min(a, b, ...)`: a function here (a bare `max` is a die's top
        // face in a condition).
        if (self.is_word("max") || self.is_word("min"))
            && matches!(self.toks.get(self.at + 1), Some((Tok::Sym("("), _)))
        {
            let op = if self.is_word("max") {
                Op::Max
            } else {
                Op::Min
            };
            self.advance();
            self.advance();
            let mut e = self.expr(depth + 1)?;
            self.expect_sym(",")?;
            loop {
                let b = self.expr(depth + 1)?;
                e = Expr::Bin(op, Box::new(e), Box::new(b));
                if !self.another(")")? {
                    return Ok(e);
                }
            }
        }
        // A number, a name or a parenthesised expression: what a modifier takes too.
        match self.number(depth)? {
            Some(e) => Ok(e),
            None => Err(self.unexpected("a number, dice (`3d6`), a name or `(`")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_examples() {
        for ok in [
            "4d6 drop lowest",
            "2d20 highest",
            "d20 + 5 >= 15",
            "5d10 again 10 count >= 7",
            "6d10 explode keep highest 3",
            "let a = d20 in if a == 20 then 2d8 + 3 else 1d8 + 3",
            "[2d6, 1d8] keep highest 2",
            "4dF",
            "d{0, 0, 1, 1, 2}",
            "d{blank, blank, hit, hit, crit=2}",
            "(skill)d10 count >= 7",
            "3d6 maxset",
            "d% <= 35",
            "let p = 4d6 in if p count 6 >= 2 then 7 else p highest",
            "let p = 5d10 in p count >= 7 - p count 1",
            "pairs(3d6, 2d6)",
            "beats(3d12, 3d12, ties)",
            "(skill)d10 count >= target",
            "5d6 reroll <= (skill - 3) once",
        ] {
            parse(ok).unwrap_or_else(|e| panic!("{ok}: {}", e.render(ok)));
        }
    }

    #[test]
    fn errors_point_at_the_column() {
        let e = parse("4d6 drop lowst").unwrap_err();
        assert_eq!(e.col, 9);
        assert!(e.message.contains("`highest` or `lowest`"), "{}", e.message);
        let e = parse("3d6 +").unwrap_err();
        assert_eq!(e.col, 5);
        let e = parse("2d0").unwrap_err();
        assert!(e.message.contains("1 to 1,000 sides"), "{}", e.message);
        let deep = "(".repeat(500) + "1" + &")".repeat(500);
        assert!(parse(&deep).is_err());
    }
}

//! A record of named results packed into one number, each field a digit, so that both
//! engines carry the joint distribution unchanged.

use super::*;

/// One named result of a record: its name, its smallest value, the step between its
/// values and how many steps it spans; packed, it is digit `i` of the result in the
/// mixed radix of the spans.
#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    /// The name written before `=`: the metric it becomes.
    pub name: String,
    /// The field's smallest value.
    pub lo: i64,
    /// The distance between its values (1, or where its values were counted, their
    /// greatest common step: damage x 100 takes every hundredth number).
    pub step: i64,
    /// How many values it spans (its largest is `lo + (span - 1) * step`).
    pub span: i64,
    /// The product of the spans of the fields before it.
    pub stride: i64,
}

impl Field {
    /// This field's value in a packed result.
    pub fn of(&self, packed: i64) -> i64 {
        self.lo + self.step * packed.div_euclid(self.stride).rem_euclid(self.span)
    }
}

/// Most numbers a record's packed result may span: what one exact distribution spans.
/// The combinations it takes are the states of the Monte Carlo table, counted there (at
/// most [`crate::systems::dice::MAX_STATES`]): `{gold = 3d6 * 10, xp = d100 * 10}` spans
/// 151 x 991 numbers and takes 1,600 combinations.
pub const MAX_COMBINATIONS: i64 = crate::systems::dice::exact::MAX_SPAN as i64;

/// Parse and compile a scenario's result: one number, or a record of named results
/// packed into one number (each field a digit of it, so that the exact engine and the
/// sampler carry their joint distribution unchanged) with its fields.
pub fn parse_result(
    text: &str,
    names: Names,
) -> Result<(Node, Option<Vec<Field>>), lang::SyntaxError> {
    parse_result_counted(text, names, &|_| None)
}

/// [`parse_result`], where the bounds of a record's fields multiply past what one law
/// spans, with each field's values counted by `values` (the values the program with the
/// record replaced by that field takes: its exact distribution's), so that a record is
/// packed by what its fields take, not their bounds (`{a = x * 1000, b = x * 1000}`
/// takes 20 values each, over 19,001 numbers).
pub fn parse_result_counted(
    text: &str,
    names: Names,
    values: &dyn Fn(&Node) -> Option<Vec<i64>>,
) -> Result<(Node, Option<Vec<Field>>), lang::SyntaxError> {
    result_counted(&lang::parse(text)?, names, values)
}

/// [`parse_result_counted`] of a result parsed already.
pub fn result_counted(
    e: &lang::Expr,
    names: Names,
    values: &dyn Fn(&Node) -> Option<Vec<i64>>,
) -> Result<(Node, Option<Vec<Field>>), lang::SyntaxError> {
    let at = |e: CompileError| lang::SyntaxError {
        col: e.col,
        message: e.message,
    };
    let n = Compiler::compiling(e, names, true)
        .and_then(|mut ctx| ctx.node(e))
        .map_err(at)?;
    // No record: nothing to pack, and no copy of the tree made to try.
    if record_of(e).is_none() {
        return Ok((n, None));
    }
    let col = record_col(e);
    let said = |message: String| lang::SyntaxError { col, message };
    let mut fields = None;
    let n = match packed(n.clone(), &mut Vec::new(), &mut fields, None) {
        Ok(p) => p,
        Err(m) => {
            // Each field's values counted, where every one can be.
            let counted = (0..record_names(e).len())
                .map(|i| values(&only_field(n.clone(), i)).and_then(|v| Digit::of_values(&v)))
                .collect::<Option<Vec<Digit>>>()
                .ok_or_else(|| said(m))?;
            packed(n, &mut Vec::new(), &mut fields, Some(&counted)).map_err(said)?
        }
    };
    let named = fields.map(|f: Vec<(Digit, i64)>| {
        record_names(e)
            .into_iter()
            .zip(f)
            .map(|(name, (d, stride))| Field {
                name,
                lo: d.lo,
                step: d.step,
                span: d.span(),
                stride,
            })
            .collect()
    });
    Ok((n, named))
}

/// What a field of a record spans: its smallest and largest value, and the step
/// between its values.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Digit {
    lo: i64,
    hi: i64,
    step: i64,
}

impl Digit {
    /// Every number from `lo` to `hi`.
    fn bounds((lo, hi): (i64, i64)) -> Digit {
        Digit { lo, hi, step: 1 }
    }

    /// The values a field takes (ascending, not empty), in their greatest common step.
    fn of_values(values: &[i64]) -> Option<Digit> {
        let (&lo, &hi) = (values.first()?, values.last()?);
        let step = values
            .iter()
            .fold(0u64, |g, v| num_integer::gcd(g, v.abs_diff(lo)));
        Some(Digit {
            lo,
            hi,
            step: i64::try_from(step.max(1)).ok()?,
        })
    }

    /// How many steps it spans.
    fn span(&self) -> i64 {
        (self.hi.saturating_sub(self.lo) / self.step).saturating_add(1)
    }
}

/// The program with the record at the end of its `let`s replaced by its field `i`.
fn only_field(n: Node, i: usize) -> Node {
    let mut n = n;
    let take = |b: &mut Node| only_field(std::mem::replace(b, Node::Num(0)), i);
    match &mut n {
        Node::Let(_, body) | Node::LetPool { body, .. } => **body = take(body),
        Node::CountedVar(_, bodies) => bodies.iter_mut().for_each(|b| *b = take(b)),
        Node::Repeat(r) => r.body = take(&mut r.body),
        Node::Pick(p) => p.body = take(&mut p.body),
        Node::Record(parts) => return parts.swap_remove(i),
        _ => {}
    }
    n
}

/// The record at the end of a chain of `let`s (and `repeat`s' `then`), if there is one.
pub(super) fn record_of(e: &Expr) -> Option<&Expr> {
    match e {
        Expr::Let(_, _, body) => record_of(body),
        Expr::Repeat(r) => record_of(&r.body),
        Expr::Choose(c) => c.body.as_ref().and_then(record_of),
        Expr::Pick(p) => p.body.as_ref().and_then(record_of),
        r @ Expr::Record(..) => Some(r),
        _ => None,
    }
}

pub(super) fn record_names(e: &Expr) -> Vec<String> {
    match record_of(e) {
        Some(Expr::Record(f, _)) => f.iter().map(|(n, ..)| n.clone()).collect(),
        _ => Vec::new(),
    }
}

pub(super) fn record_col(e: &Expr) -> usize {
    match record_of(e) {
        Some(Expr::Record(_, c)) => *c,
        _ => 0,
    }
}

/// The bounds of each field of the record at the end of `n`'s `let`s, joined over every
/// way there (each count of a pool variable whose count is a value has its own record).
fn field_bounds(n: &Node, vars: &mut Vec<(i64, i64)>) -> Option<Vec<(i64, i64)>> {
    let scoped = |body: &Node, add: Vec<(i64, i64)>, vars: &mut Vec<(i64, i64)>| {
        let base = vars.len();
        vars.extend(add);
        let r = field_bounds(body, vars);
        vars.truncate(base);
        r
    };
    match n {
        Node::Let(bound, body) => {
            let b = bounds(bound, vars);
            scoped(body, vec![b], vars)
        }
        Node::LetPool { body, .. } => scoped(body, vec![(0, 0)], vars),
        Node::Repeat(r) => {
            let state = repeat_bounds(r, vars);
            scoped(&r.body, state, vars)
        }
        Node::Pick(p) => scoped(&p.body, vec![p.sides_bounds(); p.roles.len()], vars),
        Node::CountedVar(_, bodies) => {
            bodies
                .iter()
                .filter_map(|b| field_bounds(b, vars))
                .reduce(|a, b| {
                    a.iter()
                        .zip(&b)
                        .map(|(x, y)| (x.0.min(y.0), x.1.max(y.1)))
                        .collect()
                })
        }
        Node::Record(parts) => Some(parts.iter().map(|p| bounds(p, vars)).collect()),
        _ => None,
    }
}

/// Replace the record at the end of the `let`s by its packed number: field `i` less its
/// smallest value, in its steps, times the product of the spans before it, summed.
/// `vars`: the bounds of the `let` values in scope; each field's digit `forced` where
/// its values were counted or its bounds joined over several records.
fn packed(
    n: Node,
    vars: &mut Vec<(i64, i64)>,
    fields: &mut Option<Vec<(Digit, i64)>>,
    forced: Option<&[Digit]>,
) -> Result<Node, String> {
    // A `let` of either kind: the body packed with the variable's bounds in scope (a
    // pool variable's read bounds itself).
    let mut n = n;
    let scoped = match &mut n {
        Node::Let(bound, body) => Some((bounds(bound, vars), body)),
        Node::LetPool { body, .. } => Some(((0, 0), body)),
        _ => None,
    };
    if let Some((b, body)) = scoped {
        vars.push(b);
        let p = packed(
            std::mem::replace(&mut **body, Node::Num(0)),
            vars,
            fields,
            forced,
        );
        vars.pop();
        **body = p?;
        return Ok(n);
    }
    Ok(match n {
        Node::CountedVar(c, bodies) => {
            // One packing for every count: the fields' bounds over them all.
            let joined = field_bounds(&Node::CountedVar(c.clone(), bodies.clone()), vars)
                .map(|b| b.into_iter().map(Digit::bounds).collect::<Vec<_>>());
            let forced = forced.or(joined.as_deref());
            let bodies = bodies
                .into_iter()
                .map(|b| packed(b, vars, fields, forced))
                .collect::<Result<Vec<_>, _>>()?;
            Node::CountedVar(c, bodies)
        }
        Node::Repeat(r) => {
            let base = vars.len();
            let state = repeat_bounds(&r, vars);
            vars.extend_from_slice(&state);
            let mut r = r;
            let body = packed(
                std::mem::replace(&mut r.body, Node::Num(0)),
                vars,
                fields,
                forced,
            );
            vars.truncate(base);
            r.body = body?;
            Node::Repeat(r)
        }
        Node::Pick(mut p) => {
            let base = vars.len();
            vars.extend(std::iter::repeat_n(p.sides_bounds(), p.roles.len()));
            let body = packed(p.body, vars, fields, forced);
            vars.truncate(base);
            p.body = body?;
            Node::Pick(p)
        }
        Node::Record(parts) => {
            let digits: Vec<Digit> = parts
                .iter()
                .enumerate()
                .map(|(i, part)| match forced.and_then(|b| b.get(i)) {
                    Some(&d) => d,
                    None => Digit::bounds(bounds(part, vars)),
                })
                .collect();
            let spans: Vec<i64> = digits.iter().map(Digit::span).collect();
            let combos = spans.iter().try_fold(1i64, |a, &s| a.checked_mul(s));
            if combos.is_none_or(|c| c > MAX_COMBINATIONS) {
                // A record is rolled and counted jointly: fields rolled apart (six
                // characteristics of 2d6) go in scenarios of their own.
                let half = spans.len().div_ceil(2);
                return Err(format!(
                    "the record's results span {} values: together more than {} numbers \
                     (a record is counted jointly; fields rolled apart can be split over \
                     records of fewer fields, e.g. {half} and {} in two scenarios)",
                    spans
                        .iter()
                        .map(i64::to_string)
                        .collect::<Vec<_>>()
                        .join(" x "),
                    crate::text::thousands(MAX_COMBINATIONS as u64),
                    spans.len() - half
                ));
            }
            let mut out: Option<Node> = None;
            let mut stride: i64 = 1;
            let mut f = Vec::new();
            for (part, (d, span)) in parts.into_iter().zip(digits.into_iter().zip(spans)) {
                let mut digit = Node::Sub(Box::new(part), Box::new(Node::Num(d.lo)));
                if d.step > 1 {
                    digit = Node::Div(Box::new(digit), Box::new(Node::Num(d.step)));
                }
                let term = if stride == 1 {
                    digit
                } else {
                    Node::Mul(Box::new(Node::Num(stride)), Box::new(digit))
                };
                out = Some(match out {
                    None => term,
                    Some(acc) => Node::Add(Box::new(acc), Box::new(term)),
                });
                f.push((d, stride));
                stride *= span;
            }
            *fields = Some(f);
            out.unwrap_or(Node::Num(0))
        }
        other => other,
    })
}

/// Fold an expression without dice to its number.
pub(super) fn constant(n: &Node) -> Option<i64> {
    Some(match n {
        Node::Num(v) => *v,
        Node::Neg(a) => -constant(a)?,
        Node::Add(a, b) => constant(a)?.checked_add(constant(b)?)?,
        Node::Sub(a, b) => constant(a)?.checked_sub(constant(b)?)?,
        Node::Mul(a, b) => constant(a)?.checked_mul(constant(b)?)?,
        Node::Max(a, b) => constant(a)?.max(constant(b)?),
        Node::Min(a, b) => constant(a)?.min(constant(b)?),
        Node::Div(a, b) => {
            let d = constant(b)?;
            divide(constant(a)?, d)
        }
        _ => return None,
    })
}

//! A record of named results packed into one number, each field a digit, so that both
//! engines carry the joint distribution unchanged.

use super::*;

/// One named result of a record: its name, its smallest value and how many values it
/// spans; packed, it is digit `i` of the result in the mixed radix of the spans.
#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    /// The name written before `=`: the metric it becomes.
    pub name: String,
    /// The field's smallest value.
    pub lo: i64,
    /// How many values it spans (its largest is `lo + span - 1`).
    pub span: i64,
    /// The product of the spans of the fields before it.
    pub stride: i64,
}

impl Field {
    /// This field's value in a packed result.
    pub fn of(&self, packed: i64) -> i64 {
        self.lo + packed.div_euclid(self.stride).rem_euclid(self.span)
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
    let e = lang::parse(text)?;
    let at = |e: CompileError| lang::SyntaxError {
        col: e.col,
        message: e.message,
    };
    let n = Compiler::compiling(&e, names, true)
        .and_then(|mut ctx| ctx.node(&e))
        .map_err(at)?;
    let col = record_col(&e);
    let mut fields = None;
    let n =
        pack(n, &mut Vec::new(), &mut fields).map_err(|m| lang::SyntaxError { col, message: m })?;
    let named = fields.map(|f: Vec<(i64, i64, i64)>| {
        record_names(&e)
            .into_iter()
            .zip(f)
            .map(|(name, (lo, span, stride))| Field {
                name,
                lo,
                span,
                stride,
            })
            .collect()
    });
    Ok((n, named))
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

/// Replace the record at the end of the `let`s by its packed number: field `i` less its
/// smallest value, times the product of the spans before it, summed. `vars`: the
/// bounds of the `let` values in scope.
pub(super) fn pack(
    n: Node,
    vars: &mut Vec<(i64, i64)>,
    fields: &mut Option<Vec<(i64, i64, i64)>>,
) -> Result<Node, String> {
    packed(n, vars, fields, None)
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

/// [`pack`], each field's bounds `forced` where they are joined over several records.
fn packed(
    n: Node,
    vars: &mut Vec<(i64, i64)>,
    fields: &mut Option<Vec<(i64, i64, i64)>>,
    forced: Option<&[(i64, i64)]>,
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
            let joined = field_bounds(&Node::CountedVar(c.clone(), bodies.clone()), vars);
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
            let mut out: Option<Node> = None;
            let mut stride: i64 = 1;
            let mut f = Vec::new();
            let mut spans = Vec::new();
            for (i, part) in parts.into_iter().enumerate() {
                let (lo, hi) = match forced.and_then(|b| b.get(i)) {
                    Some(&b) => b,
                    None => bounds(&part, vars),
                };
                let span = hi.saturating_sub(lo).saturating_add(1);
                spans.push(span);
                let combos = stride.saturating_mul(span);
                if combos > MAX_COMBINATIONS {
                    return Err(format!(
                        "the record's results span {} values: together more than {MAX_COMBINATIONS} combinations",
                        spans.iter().map(i64::to_string).collect::<Vec<_>>().join(" x ")
                    ));
                }
                let digit = Node::Sub(Box::new(part), Box::new(Node::Num(lo)));
                let term = if stride == 1 {
                    digit
                } else {
                    Node::Mul(Box::new(Node::Num(stride)), Box::new(digit))
                };
                out = Some(match out {
                    None => term,
                    Some(acc) => Node::Add(Box::new(acc), Box::new(term)),
                });
                f.push((lo, span, stride));
                stride = combos;
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

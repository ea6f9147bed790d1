//! What a value picks as the roll goes on: a card from what the cards dealt before it
//! left, and a pool variable of as many dice as its count says.

use super::*;

/// A pool variable whose dice count is a value: the binding and body of each count it
/// takes, mixed.
pub(super) fn counted_var(
    c: &Node,
    bodies: &[Node],
    env: &mut Env,
    ledger: &mut Ledger,
) -> Result<Dist, TooBig> {
    let d = eval(c, env, ledger)?;
    let mut out: Option<Dist> = None;
    for (k, p) in d.iter_nonzero() {
        ledger.most_dice = ledger.most_dice.max(k);
        let r = ledger.within(p, |ledger| {
            eval(
                crate::systems::dice::program::counted(bodies, k),
                env,
                ledger,
            )
        });
        mix(&mut out, &r?, p, ledger)?;
    }
    Ok(out.unwrap_or_else(|| Dist::point(0)).trim())
}

/// A card from what the cards dealt before it left of its deck.
pub(super) fn card(c: &Card, env: &mut Env, ledger: &mut Ledger) -> Result<Dist, TooBig> {
    let mut dealt = Vec::with_capacity(c.before.len());
    for b in &c.before {
        let d = eval(b, env, ledger)?;
        if d.p.len() != 1 {
            return Err(TooBig("a card dealt after cards not yet known".into()));
        }
        dealt.push(d.lo);
    }
    let (lo, hi) = c.range();
    if hi.abs_diff(lo) >= MAX_SPAN as u64 {
        return Err(TooBig(format!(
            "a deck whose values span more than {MAX_SPAN}"
        )));
    }
    let left: u64 = c.ways(&dealt).map(|(_, n)| n).sum();
    if left == 0 {
        return Ok(Dist::point(0));
    }
    Ok(Dist::from_pairs(
        c.ways(&dealt).map(|(v, n)| (v, n as f64 / left as f64)),
    ))
}

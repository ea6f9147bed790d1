//! Issue #26, item 3: decks. Cards with named faces and counts, dealt without
//! replacement: exact by the multivariate hypergeometric law, Monte Carlo by dealing.
//! Each against a brute-force enumeration written here of every set of places a hand
//! can take in the shuffled deck (all equally likely), and Monte Carlo within 4.5
//! standard errors.

use crate::dice_lang::{compile, same};
use crate::util::assert_agrees;
use std::collections::BTreeMap;

/// Every `k`-card hand of `cards` (by places), each equally likely, read by `f` (the
/// hand sorted low to high).
fn deal(cards: &[i64], k: usize, f: impl Fn(&[i64]) -> i64) -> BTreeMap<i64, f64> {
    fn go(cards: &[i64], from: usize, k: usize, hand: &mut Vec<i64>, out: &mut Vec<Vec<i64>>) {
        if hand.len() == k {
            let mut h = hand.clone();
            h.sort_unstable();
            out.push(h);
            return;
        }
        for i in from..cards.len() {
            hand.push(cards[i]);
            go(cards, i + 1, k, hand, out);
            hand.pop();
        }
    }
    let mut hands = Vec::new();
    go(cards, 0, k, &mut Vec::new(), &mut hands);
    let w = 1.0 / hands.len() as f64;
    let mut m = BTreeMap::new();
    for h in &hands {
        *m.entry(f(h)).or_insert(0.0) += w;
    }
    m
}

/// Gloomhaven's starting attack modifier deck: 6 x +0, 5 x +1, 5 x -1, +2, -2, x2 and
/// a null, the last two written 100 and -100.
fn gloomhaven() -> Vec<i64> {
    let mut d = vec![0; 6];
    d.extend([1; 5]);
    d.extend([-1; 5]);
    d.extend([2, -2, 100, -100]);
    d
}

/// An attack of 3 modified by a card: doubled, nothing, or 3 + the card (not below 0).
fn damage(card: i64) -> i64 {
    match card {
        100 => 6,
        -100 => 0,
        c => (3 + c).max(0),
    }
}

const DECK: &str = "deck{0*6, 1*5, -1*5, 2, -2, x2=100, null=-100}";

#[test]
fn cards_drawn_without_replacement() {
    // Two of five numbered cards: 10 hands. P(sum 3) = P({1,2}) = 1/10 (with
    // replacement it would be 2/25).
    let cards = [1, 2, 3, 4, 5];
    let want = deal(&cards, 2, |h| h.iter().sum());
    assert!((want[&3] - 0.1).abs() < 1e-15);
    let c = compile("deck{1, 2, 3, 4, 5} draw 2", None);
    same(&c, &want);
    assert_agrees(&c, &["value"], 200_000, 2611);
    // The whole deck dealt: always 15.
    same(
        &compile("deck{1, 2, 3, 4, 5} draw 5", None),
        &BTreeMap::from([(15, 1.0)]),
    );
    // Copies: `v * n` is n cards.
    let want = deal(&[0, 0, 0, 1, 1], 3, |h| h.iter().sum());
    same(&compile("deck{0*3, 1*2} draw 3", None), &want);
}

#[test]
fn the_gloomhaven_modifier_deck() {
    // One card: the attack's damage. Mean by hand: (6*3 + 5*4 + 5*2 + 5 + 1 + 6 + 0)/20
    // = 60/20 = 3.
    let want = deal(&gloomhaven(), 1, |h| damage(h[0]));
    let mean: f64 = want.iter().map(|(v, p)| *v as f64 * p).sum();
    assert!((mean - 3.0).abs() < 1e-12, "{mean}");
    let roll = format!(
        "let c = {DECK} draw 1 in if c == 100 then 6 else if c == -100 then 0 else if 3 + c < 0 then 0 else 3 + c"
    );
    let c = compile(&roll, None);
    same(&c, &want);
    assert_agrees(&c, &["value"], 200_000, 2612);
    // With advantage: two cards, the better one (x2 best, null worst).
    let want = deal(&gloomhaven(), 2, |h| damage(h[1]));
    let roll = format!(
        "let c = {DECK} draw 2 keep highest 1 in if c == 100 then 6 else if c == -100 then 0 else if 3 + c < 0 then 0 else 3 + c"
    );
    let c = compile(&roll, None);
    same(&c, &want);
    assert_agrees(&c, &["value"], 200_000, 2613);
}

#[test]
fn a_hand_read_several_ways() {
    // Five of the modifier deck, read twice: how many +1s, and the best card.
    let cards = gloomhaven();
    let mut want = BTreeMap::new();
    for (k, p) in deal(&cards, 5, |h| {
        let ones = h.iter().filter(|&&x| x == 1).count() as i64;
        ones * 1000 + h[4]
    }) {
        *want.entry(k).or_insert(0.0) += p;
    }
    let c = compile(
        &format!("let h = {DECK} draw 5 in h count 1 * 1000 + h highest"),
        None,
    );
    same(&c, &want);
    // By hand: no +1 in five of twenty with five +1s: C(15,5)/C(20,5) = 3003/15504.
    let none: f64 = want
        .iter()
        .filter(|(k, _)| **k < 1000)
        .map(|(_, p)| p)
        .sum();
    assert!((none - 3003.0 / 15504.0).abs() < 1e-14, "{none}");
    assert_agrees(&c, &["value"], 200_000, 2614);
}

#[test]
fn cards_with_symbols_and_a_dealt_count_from_a_value() {
    // Cards counted by name: 3 strikes, 2 blocks, 5 blanks; a hand of 3, strikes less
    // blocks.
    let cards = [1, 1, 1, -1, -1, 0, 0, 0, 0, 0];
    let want = deal(&cards, 3, |h| h.iter().sum());
    let c = compile(
        "let h = deck{strike*3, block*2, blank*5} draw 3 in h count strike - h count block",
        None,
    );
    same(&c, &want);
    // How many cards is a value: a d2 of them.
    let mut want = BTreeMap::new();
    for k in 1..=2 {
        for (v, p) in deal(&[1, 1, 2, 2, 2], k, |h| h.iter().sum()) {
            *want.entry(v).or_insert(0.0) += p / 2.0;
        }
    }
    let c = compile("deck{1*2, 2*3} draw (d2)", None);
    same(&c, &want);
    assert_agrees(&c, &["value"], 200_000, 2615);
}

#[test]
fn a_deck_s_mistakes_are_named() {
    let err = crate::dice_lang::load_err;
    let e = err("deck{1, 2, 3} draw 4");
    assert!(e.contains("draw 4: a deck of 3 cards deals 0 to 3"), "{e}");
    let e = err("deck{1, 2, 3} draw 2 explode");
    assert!(e.contains("dealt, not rolled"), "{e}");
    let e = err("pairs(deck{1, 2, 3} draw 2, 2d6)");
    assert!(e.contains("not a deck"), "{e}");
    let e = err("deck{1, 2, 3} draw");
    assert!(e.contains("how many cards are drawn"), "{e}");
    let e = err("deck 1, 2");
    assert!(e.contains("the deck's cards"), "{e}");
}

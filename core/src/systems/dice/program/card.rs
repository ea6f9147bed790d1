//! One card dealt from what is left of a deck (`let a, b, c = deck{...} draw 3 in ...`):
//! the law every engine reads it by, written once.
//!
//! A deal in order is card after card, each from the deck the cards before it left.
//! Cards of one value cannot be told apart by anything that reads them, so the next
//! card is value `v` in `left(v)` ways of `left` in all, where `left(v)` is the deck's
//! cards of value `v` less those dealt before it. The exact engines enumerate the
//! values dealt (a Texas hold 'em flop by rank is 13^3 sequences, not its hands times
//! their 3! orders), and Monte Carlo deals one card from them, as a dealer does.

use super::Node;

/// A card dealt after the cards `before` (read as values, in scope when it is dealt)
/// from a deck holding `kinds`: each value with how many cards have it, values rising.
#[derive(Clone, Debug, PartialEq)]
pub struct Card {
    /// Each value of the deck with its number of cards, values rising, each once.
    pub kinds: Vec<(i64, u64)>,
    /// The cards dealt before this one (the variables naming them).
    pub before: Vec<Node>,
}

impl Card {
    /// The deck whose cards have the values `faces` (one entry per card).
    pub fn of_faces(faces: &[i64], before: Vec<Node>) -> Card {
        let mut kinds: Vec<(i64, u64)> = Vec::new();
        let mut sorted = faces.to_vec();
        sorted.sort_unstable();
        for v in sorted {
            match kinds.last_mut() {
                Some((last, n)) if *last == v => *n += 1,
                _ => kinds.push((v, 1)),
            }
        }
        Card { kinds, before }
    }

    /// The ways this card is each value, with the cards before it of values `dealt`,
    /// values rising (a value no card is left of has 0 ways).
    pub fn ways<'a>(&'a self, dealt: &'a [i64]) -> impl Iterator<Item = (i64, u64)> + 'a {
        self.kinds.iter().map(move |&(v, n)| {
            let gone = dealt.iter().filter(|&&d| d == v).count() as u64;
            (v, n.saturating_sub(gone))
        })
    }

    /// The lowest and highest value the card can be.
    pub fn range(&self) -> (i64, i64) {
        match (self.kinds.first(), self.kinds.last()) {
            (Some(&(lo, _)), Some(&(hi, _))) => (lo, hi),
            _ => (0, 0),
        }
    }
}

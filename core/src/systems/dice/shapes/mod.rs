//! Reads of a pool that depend only on how many dice show each face: each one unit, a
//! [`Shape`] in the table [`SHAPES`]. Its keyword, its bounds, its value on sorted dice
//! (what Monte Carlo reads) and its step in the exact engine's multiset pass (what the
//! exact engine reads, over any number of dice, kinds of dice and keeps) live together,
//! so a new read is a file here and a line in the table: the parser, the compiler, the
//! bounds, the sampler and the pass read it through this trait. Its test checks the two
//! readings against each other on every roll of small pools.
//!
//! (`maxset` and `straight` predate the table and are still arms of [`super::lang::Agg`]
//! of their own, with special passes beside the general one.)

mod mode;
mod runs;
mod sets;

/// A read of a pool's multiset of faces.
pub trait Shape: Sync {
    /// The word that reads it (`runs`).
    fn word(&self) -> &'static str;
    /// Whether the word takes a whole number after it (`sets 3`), and the smallest
    /// number it takes.
    fn number(&self) -> Option<i64>;
    /// What it reads, for messages and docs.
    fn meaning(&self) -> &'static str;
    /// The lowest and highest value on `n` dice whose faces lie in `faces`.
    fn bounds(&self, n: i64, k: i64, faces: (i64, i64)) -> (i64, i64);
    /// The value on `dice`, sorted ascending (`k`: the number after the word).
    fn of_sorted(&self, dice: &[i64], k: i64) -> i64;
    /// How many numbers its state takes in the multiset pass (at most [`WIDTH`]).
    fn width(&self) -> usize;
    /// The state before any face is visited.
    fn init(&self, st: &mut [i32]);
    /// `c` dice show `o` (faces are visited highest first; `prev` is the face visited
    /// before, a higher one, whether any die showed it or not; a face no die can show is
    /// never visited).
    fn step(&self, st: &mut [i32], o: i64, prev: Option<i64>, c: u32, k: i64);
    /// The value once every face is visited.
    fn value(&self, st: &[i32], k: i64) -> i64;
}

/// The most numbers a shape's state takes.
pub const WIDTH: usize = 2;

/// Every shape read, by the index a compiled read names it with.
pub static SHAPES: &[&dyn Shape] = &[&runs::Runs, &sets::Sets, &mode::Mode];

/// A compiled shape read: which [`Shape`], and the number after its word (0 if none).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ShapeRead {
    /// Its index in [`SHAPES`].
    pub id: u8,
    /// The number after the word.
    pub k: i64,
}

impl ShapeRead {
    /// Its shape.
    pub fn shape(self) -> &'static dyn Shape {
        SHAPES[self.id as usize]
    }
}

/// The shape a word reads, by its index.
pub fn by_word(w: &str) -> Option<u8> {
    SHAPES.iter().position(|s| s.word() == w).map(|i| i as u8)
}

#[cfg(test)]
pub(crate) mod check {
    use super::{Shape, WIDTH};

    /// Every roll of `n` dice of the faces `faces` (ascending), read both ways: sorted
    /// dice, and faces visited highest first with the count of dice showing each.
    pub fn both_ways(s: &dyn Shape, faces: &[i64], n: usize, k: i64) {
        let mut roll = vec![0usize; n];
        loop {
            let mut dice: Vec<i64> = roll.iter().map(|&i| faces[i]).collect();
            dice.sort();
            let mut st = [0i32; WIDTH];
            s.init(&mut st);
            let mut prev = None;
            for &o in faces.iter().rev() {
                let c = dice.iter().filter(|&&d| d == o).count() as u32;
                s.step(&mut st, o, prev, c, k);
                prev = Some(o);
            }
            let (a, b) = (s.of_sorted(&dice, k), s.value(&st, k));
            assert_eq!(a, b, "{} {k} of {dice:?}", s.word());
            let (lo, hi) = s.bounds(n as i64, k, (faces[0], faces[faces.len() - 1]));
            assert!((lo..=hi).contains(&a), "{} {k} of {dice:?}: {a}", s.word());
            let mut i = 0;
            while i < n && roll[i] == faces.len() - 1 {
                roll[i] = 0;
                i += 1;
            }
            if i == n {
                break;
            }
            roll[i] += 1;
        }
    }
}

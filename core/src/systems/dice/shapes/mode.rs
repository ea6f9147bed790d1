//! `mode`: the face the most dice show, the highest of them where several faces tie (a
//! One-Roll Engine set's height: `7d10 maxset` is its width, `7d10 mode` its height); 0
//! for no dice.

use super::Shape;

pub struct Mode;

impl Shape for Mode {
    fn word(&self) -> &'static str {
        "mode"
    }
    fn number(&self) -> Option<i64> {
        None
    }
    fn meaning(&self) -> &'static str {
        "the face the most dice show (the highest of those tied)"
    }
    fn bounds(&self, n: i64, _: i64, faces: (i64, i64)) -> (i64, i64) {
        if n <= 0 {
            (0, 0)
        } else {
            faces
        }
    }
    fn of_sorted(&self, dice: &[i64], _: i64) -> i64 {
        // Ascending: a later run as long as the longest so far is of a higher face.
        let (mut best, mut face, mut run) = (0, 0, 0);
        for (i, &d) in dice.iter().enumerate() {
            run = if i > 0 && dice[i - 1] == d {
                run + 1
            } else {
                1
            };
            if run >= best {
                (best, face) = (run, d);
            }
        }
        face
    }
    fn width(&self) -> usize {
        2
    }
    fn init(&self, st: &mut [i32]) {
        // The most dice on one face so far, and that face.
        st[0] = 0;
        st[1] = 0;
    }
    fn step(&self, st: &mut [i32], o: i64, _: Option<i64>, c: u32, _: i64) {
        // Faces come highest first: only more dice than before make a new mode.
        if c as i32 > st[0] {
            st[0] = c as i32;
            st[1] = o as i32;
        }
    }
    fn value(&self, st: &[i32], _: i64) -> i64 {
        st[1] as i64
    }
}

#[cfg(test)]
mod tests {
    use super::super::check::both_ways;
    use super::*;

    #[test]
    fn mode_by_hand_and_both_ways_on_every_roll() {
        assert_eq!(Mode.of_sorted(&[2, 2, 5, 5, 5], 0), 5);
        assert_eq!(Mode.of_sorted(&[2, 2, 2, 5, 5], 0), 2);
        assert_eq!(Mode.of_sorted(&[2, 2, 5, 5, 6], 0), 5);
        assert_eq!(Mode.of_sorted(&[1, 3, 4], 0), 4);
        assert_eq!(Mode.of_sorted(&[-2, -2, 1], 0), -2);
        assert_eq!(Mode.of_sorted(&[], 0), 0);
        for n in 0..=5 {
            both_ways(&Mode, &[1, 2, 3, 4, 5, 6], n, 0);
        }
        both_ways(&Mode, &[-1, 0, 1], 4, 0);
    }
}

//! `sets N`: how many faces show on at least N dice (`5d6 sets 2` counts the pairs, a
//! full house's three and two both count).

use super::Shape;

pub struct Sets;

impl Shape for Sets {
    fn word(&self) -> &'static str {
        "sets"
    }
    fn number(&self) -> Option<i64> {
        Some(1)
    }
    fn meaning(&self) -> &'static str {
        "how many faces show on at least N dice"
    }
    fn bounds(&self, n: i64, k: i64, _: (i64, i64)) -> (i64, i64) {
        (0, n.max(0) / k.max(1))
    }
    fn of_sorted(&self, dice: &[i64], k: i64) -> i64 {
        let (mut sets, mut run) = (0, 0);
        for (i, &d) in dice.iter().enumerate() {
            run = if i > 0 && dice[i - 1] == d {
                run + 1
            } else {
                1
            };
            if run == k {
                sets += 1;
            }
        }
        sets
    }
    fn width(&self) -> usize {
        1
    }
    fn init(&self, st: &mut [i32]) {
        st[0] = 0;
    }
    fn step(&self, st: &mut [i32], _: i64, _: Option<i64>, c: u32, k: i64) {
        if c as i64 >= k {
            st[0] += 1;
        }
    }
    fn value(&self, st: &[i32], _: i64) -> i64 {
        st[0] as i64
    }
}

#[cfg(test)]
mod tests {
    use super::super::check::both_ways;
    use super::*;

    #[test]
    fn sets_by_hand_and_both_ways_on_every_roll() {
        assert_eq!(Sets.of_sorted(&[2, 2, 5, 5, 5], 2), 2);
        assert_eq!(Sets.of_sorted(&[2, 2, 5, 5, 5], 3), 1);
        assert_eq!(Sets.of_sorted(&[1, 2, 3], 1), 3);
        for k in 1..=4 {
            both_ways(&Sets, &[1, 2, 3, 4, 5, 6], 5, k);
        }
    }
}

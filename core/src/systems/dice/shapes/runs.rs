//! `runs`: how many runs of consecutive faces the dice show (1 2 3 5 6 is two runs, 4 4
//! one); 0 for no dice.

use super::Shape;

pub struct Runs;

impl Shape for Runs {
    fn word(&self) -> &'static str {
        "runs"
    }
    fn number(&self) -> Option<i64> {
        None
    }
    fn meaning(&self) -> &'static str {
        "how many runs of consecutive faces the dice show"
    }
    fn bounds(&self, n: i64, _: i64, _: (i64, i64)) -> (i64, i64) {
        (0, n.max(0))
    }
    fn of_sorted(&self, dice: &[i64], _: i64) -> i64 {
        // A face starts a run unless the face one lower shows too.
        let mut runs = 0;
        for (i, &d) in dice.iter().enumerate() {
            let seen = i > 0 && dice[i - 1] == d;
            // Sorted: the face before a new one is the next lower face shown.
            let joined = i > 0 && dice[i - 1] == d - 1;
            if !seen && !joined {
                runs += 1;
            }
        }
        runs
    }
    fn width(&self) -> usize {
        2
    }
    fn init(&self, st: &mut [i32]) {
        st[0] = 0;
        st[1] = 0;
    }
    fn step(&self, st: &mut [i32], o: i64, prev: Option<i64>, c: u32, _: i64) {
        // st[0]: whether the face visited before shows and is one higher.
        if c == 0 {
            st[0] = 0;
        } else {
            if !(st[0] == 1 && prev == Some(o + 1)) {
                st[1] += 1;
            }
            st[0] = 1;
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
    fn runs_by_hand_and_both_ways_on_every_roll() {
        assert_eq!(Runs.of_sorted(&[1, 2, 3, 5, 6], 0), 2);
        assert_eq!(Runs.of_sorted(&[4, 4], 0), 1);
        assert_eq!(Runs.of_sorted(&[1, 3, 5], 0), 3);
        assert_eq!(Runs.of_sorted(&[], 0), 0);
        both_ways(&Runs, &[1, 2, 3, 4, 5, 6], 5, 0);
        // Faces with gaps: 1 and 3 are not consecutive.
        both_ways(&Runs, &[1, 3, 4, 7], 4, 0);
    }
}

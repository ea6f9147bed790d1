//! Morale: a single rally or flee test with morale tokens.

use super::{Rules, Sense, Unit};
use crate::kernels::{Faces, Rng};
use crate::model::{Compiled, Headline, Metric, Trial};
use crate::pmf::{Prob, Ratio};

struct MoraleTrial {
    rules: Rules,
    morale: i32,
    penalty: i32,
}

impl Trial for MoraleTrial {
    fn states(&self) -> usize {
        2
    }
    #[inline(always)]
    fn sample(&self, rng: &mut Rng) -> usize {
        let roll = Faces::new(self.rules.die).stream().roll(rng);
        self.rules.morale_passes(roll, self.morale, self.penalty) as usize
    }
}

/// A `morale` scenario: one rally (`rally`) or flee test of `unit` holding `tokens`.
pub(super) fn compile_morale(
    name: &str,
    unit: &Unit,
    rally: bool,
    tokens: u32,
    rules: &Rules,
) -> Compiled {
    let penalty = rules.casualty_modifier * tokens as i32;
    let p: f64 = rules.p_morale(unit.morale, penalty);
    let labels: [&str; 2] = if rally {
        ["stays broken", "rallies"]
    } else {
        ["flees", "holds"]
    };
    Compiled::new(
        name,
        format!(
            "{} {} test: 1d{} {} morale {}{}",
            unit.name,
            if rally { "rally" } else { "flee" },
            rules.die,
            match rules.morale_sense {
                Sense::AtMost => "<=",
                Sense::AtLeast => ">=",
            },
            unit.morale,
            if penalty != 0 {
                format!(
                    ", {}: {penalty:+}",
                    crate::text::plural(tokens as u64, "morale token", "morale tokens")
                )
            } else {
                String::new()
            }
        ),
        Box::new(MoraleTrial {
            rules: rules.clone(),
            morale: unit.morale,
            penalty,
        }),
        vec![Metric::categorical(
            "result",
            "the morale test",
            &labels,
            vec![0, 1],
        )],
        Headline {
            label: format!("P({})", labels[1]),
            metric: 0,
            values: vec![1],
            against: Vec::new(),
        },
    )
    .exact(Some(vec![1.0 - p, p]))
    .fractions_later({
        let rules = rules.clone();
        let morale = unit.morale;
        move || {
            let p: Ratio = rules.p_morale(morale, penalty);
            vec![Ratio::one() - p.clone(), p]
        }
    })
}

#[cfg(test)]
mod tests {
    use super::super::testing::{assert_exact, assert_sampled, stats, unit};
    use super::super::{compile, Rules, Scenario, Sense, Stats};

    fn test(morale: i32, rally: bool, tokens: u32) -> Scenario {
        Scenario::Morale {
            unit: unit("red", Stats { morale, ..stats() }),
            rally,
            tokens,
        }
    }

    #[test]
    fn tokens_come_off_the_morale_number() {
        // Morale 7 with 2 tokens, 1 off per token: 1d10 <= 5 passes, 5/10.
        let c = compile("rally", &test(7, true, 2), &Rules::default());
        assert_exact(&c, "result", &[0.5, 0.5]);
        assert_sampled(&c, "result", &[0.5, 0.5], 21);
        // Two off per token: 1d10 <= 3, 3/10.
        let rules = Rules {
            casualty_modifier: 2,
            ..Rules::default()
        };
        let c = compile("flee", &test(7, false, 2), &rules);
        assert_exact(&c, "result", &[0.7, 0.3]);
        assert_sampled(&c, "result", &[0.7, 0.3], 22);
    }

    #[test]
    fn at_least_reads_the_die_the_other_way() {
        // Rolled at or over: tokens add to the number, 1d10 >= 7 + 2 = 9 passes, 2/10;
        // without tokens 1d10 >= 7, 4/10. On a d6, 1d6 >= 7 never passes.
        let at_least = Rules {
            morale_sense: Sense::AtLeast,
            ..Rules::default()
        };
        let c = compile("t", &test(7, true, 2), &at_least);
        assert_exact(&c, "result", &[0.8, 0.2]);
        assert_sampled(&c, "result", &[0.8, 0.2], 23);
        let c = compile("t", &test(7, true, 0), &at_least);
        assert_exact(&c, "result", &[0.6, 0.4]);
        let d6 = Rules { die: 6, ..at_least };
        let c = compile("t", &test(7, true, 0), &d6);
        assert_exact(&c, "result", &[1.0, 0.0]);
        assert_sampled(&c, "result", &[1.0, 0.0], 24);
    }
}

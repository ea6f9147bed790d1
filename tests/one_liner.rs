//! `rollsim roll EXPR [--vs EXPR]` builds its config from the expressions parsed once
//! (`config::one_liner`), not by writing a config's text and reading it back. The two
//! routes must agree: the same checked config for every expression that reads, the same
//! message for every one that does not. The text route is the reference, its errors
//! put in the command line's words as the roll command said them before.

use rollsim::config::{load_str, one_liner, AnalysisConfig, ConfigError};
use rollsim::systems::dice::config::{parse_result, DiceConfig};

/// What the route through the config's text gives: the config, or the message.
fn through_text(roll: &str, vs: Option<&str>) -> Result<DiceConfig, String> {
    let dice = rollsim::systems::find("dice").expect("the dice system");
    // Each expression checked by the language's own parser first, so that an error
    // names the expression and its column, as the command line says it.
    for (what, text) in [("roll", Some(roll)), ("--vs", vs)] {
        let Some(text) = text else { continue };
        if let Err(e) = parse_result(text, &[], &rollsim::Cancel::new()) {
            return Err(format!("{what}, {}: {}", e.place(text), e.render(text)));
        }
    }
    let text = dice.config_text(roll, vs).expect("dice reads expressions");
    match load_str(&text, "rollsim roll", &[]) {
        Ok(cfg) => Ok(dice_of(&cfg)),
        Err(ConfigError::Invalid { key, message, .. }) => {
            let (what, expr) = match key.rsplit('.').next() {
                Some("vs") => ("--vs", vs.unwrap_or_default()),
                _ => ("roll", roll),
            };
            Err(format!("{what} `{}`: {message}", expr.escape_debug()))
        }
        Err(other) => panic!("`{roll}`: {other}"),
    }
}

fn direct(roll: &str, vs: Option<&str>) -> Result<DiceConfig, String> {
    let cfg = one_liner(roll, vs, "rollsim roll", &rollsim::Cancel::new())
        .expect("dice reads expressions")?;
    assert_eq!(cfg.scenario_names(), ["roll"]);
    Ok(dice_of(&cfg))
}

/// The checked dice config of a one-liner's config, titled as the command names it.
fn dice_of(cfg: &AnalysisConfig) -> DiceConfig {
    assert_eq!(cfg.title, "rollsim roll");
    cfg.loaded
        .as_any()
        .downcast_ref::<DiceConfig>()
        .expect("a dice config")
        .clone()
}

/// Every inline code span of the dice language's guide: expressions that read, and
/// words, fragments and options that do not.
fn spans() -> Vec<String> {
    let doc = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/dice-language.md"),
    )
    .unwrap();
    let mut out: Vec<String> = doc
        .split('`')
        .skip(1)
        .step_by(2)
        .filter(|s| !s.is_empty() && !s.contains('\n'))
        .map(str::to_string)
        .collect();
    out.sort();
    out.dedup();
    out
}

#[test]
fn every_expression_of_the_guide_reads_to_the_config_its_text_would() {
    let spans = spans();
    assert!(spans.len() > 300, "{} spans", spans.len());
    let (mut read, mut refused) = (0, 0);
    for s in &spans {
        let (a, b) = (through_text(s, None), direct(s, None));
        assert_eq!(a, b, "`{s}`");
        match a {
            Ok(_) => read += 1,
            Err(_) => refused += 1,
        }
    }
    // Both kinds are there in number: the comparison is not of errors only.
    assert!(read > 100 && refused > 50, "{read} read, {refused} refused");
}

#[test]
fn opposed_rolls_read_alike_both_ways() {
    let spans = spans();
    let mut read = 0;
    for pair in spans.windows(2).step_by(3) {
        let (roll, vs) = (&pair[0], &pair[1]);
        let (a, b) = (through_text(roll, Some(vs)), direct(roll, Some(vs)));
        assert_eq!(a, b, "`{roll}` against `{vs}`");
        read += a.is_ok() as usize;
    }
    assert!(read > 20, "{read}");
}

#[test]
fn each_refusal_names_its_expression_and_says_why() {
    let cases: &[(&str, Option<&str>, &str)] = &[
        ("d6 +", None, "roll, column 5: in the expression"),
        ("d6", Some("66d1000"), "--vs `66d1000`:"),
        ("d6", Some("d6 +"), "--vs, column 5: in the expression"),
        (
            "{ a = d6, b = d8 }",
            Some("d6"),
            "--vs `d6`: a roll with named results",
        ),
        (
            "(d1000 * 3)d6",
            None,
            "roll `(d1000 * 3)d6`: a dice count that is rolled",
        ),
        (
            "d6",
            Some("(d1000 * 3)d6"),
            "--vs `(d1000 * 3)d6`: a dice count that is rolled",
        ),
    ];
    for (roll, vs, said) in cases {
        let (a, b) = (through_text(roll, *vs), direct(roll, *vs));
        assert_eq!(a, b, "`{roll}` against {vs:?}");
        let err = b.expect_err(roll);
        assert!(err.starts_with(said), "`{roll}` against {vs:?}: {err}");
    }
}

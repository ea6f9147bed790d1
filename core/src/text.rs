//! Words in generated text: counts with the right noun form, verbs that agree with a
//! unit's name. Shared by every system's descriptions and labels and by the charts.

/// `1 round`, `3 rounds`.
pub fn plural(n: impl Into<u64>, one: &str, many: &str) -> String {
    let n = n.into();
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Whether a unit's name reads as plural (`Archers`, `Spearmen`), so that its verb is
/// `win`, not `wins`. Names are the designer's words; this is the English rule of
/// thumb (a final `s` that is not `ss`, or `men`/`people`).
pub fn is_plural(name: &str) -> bool {
    let last = name
        .split_whitespace()
        .last()
        .unwrap_or("")
        .to_ascii_lowercase();
    (last.ends_with('s') && !last.ends_with("ss") && last.len() > 2)
        || last.ends_with("men")
        || last == "people"
        || last == "folk"
}

/// `Fighter wins`, `Archers win`.
pub fn wins(name: &str) -> String {
    format!("{name} {}", if is_plural(name) { "win" } else { "wins" })
}

/// `Fighter's`, `Archers'`.
pub fn possessive(name: &str) -> String {
    if is_plural(name) && name.ends_with('s') {
        format!("{name}'")
    } else {
        format!("{name}'s")
    }
}

/// `Skirmishers react`, `Archer reacts`: a verb in the third person that agrees.
pub fn agrees(name: &str, singular: &str, plural: &str) -> String {
    format!("{name} {}", if is_plural(name) { plural } else { singular })
}

/// `v` with `d` decimals, never `-0.00`: a value that rounds to zero prints as zero.
pub fn fixed(v: f64, d: usize) -> String {
    let s = format!("{v:.d$}");
    if rounds_to_zero(&s) {
        format!("{:.d$}", 0.0)
    } else {
        s
    }
}

/// A probability as a percentage with `d` decimals that claims no certainty and no
/// impossibility it does not have: exactly 1 is `100.0%` and exactly 0 is `0.0%`, but a
/// value below 1 that would round up to 100 reads `>99.9%`, and one above 0 that would
/// round down to 0 reads `<0.1%` (issue #71: `compare` printed 99.97% as "100.0%").
pub fn percent(p: f64, d: usize) -> String {
    let shown = fixed(p * 100.0, d);
    let step = 10f64.powi(-(d as i32));
    // Below 1, the only text that starts `100` is 100 rounded up; the ends compared as
    // text, not formatted again for every value of a table.
    if p < 1.0 && shown.starts_with("100") {
        format!(">{}%", fixed(100.0 - step, d))
    } else if p > 0.0 && rounds_to_zero(&shown) {
        format!("<{}%", fixed(step, d))
    } else {
        format!("{shown}%")
    }
}

/// `v` in scientific notation with `d` decimals, more where `d` would show a number
/// below 1 as 1 (`0.999989` is `9.9999e-1`, not `1.000e0`): an exact chance that a
/// limit cut a roll, near certain, does not read as certain.
pub fn sci(v: f64, d: usize) -> String {
    let mut shown = format!("{v:.d$e}");
    let mut more = d;
    while v < 1.0 && more < 17 && shown.parse::<f64>().is_ok_and(|s| s >= 1.0) {
        more += 1;
        shown = format!("{v:.more$e}");
    }
    shown
}

/// `v` with its sign (`+0.25`, `-1.50`) and `d` decimals; zero has none (`0.00`).
pub fn signed(v: f64, d: usize) -> String {
    let s = format!("{v:+.d$}");
    if rounds_to_zero(&s) {
        format!("{:.d$}", 0.0)
    } else {
        s
    }
}

fn rounds_to_zero(s: &str) -> bool {
    s.trim_start_matches(['+', '-'])
        .chars()
        .all(|c| c == '0' || c == '.')
}

/// `v`'s decimal digits, written from the end of `buf` (the part returned): a table's
/// numbers put down one by one, without the formatter's machinery.
pub fn digits(mut v: u64, buf: &mut [u8; 20]) -> &[u8] {
    let mut at = buf.len();
    loop {
        at -= 1;
        buf[at] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            return &buf[at..];
        }
    }
}

/// Thousands separators, for trial counts.
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A probability as the odds a designer says aloud: `1 in 8`, `1 in 7.7`, `1 in 1,680`.
/// `unit` is N when `p` is exactly 1/N, which then needs no rounding; otherwise 1/p
/// rounded to one decimal below 10, to a whole number up to 1,000 and to three
/// significant digits beyond, because past that the odds of a rare event are read for
/// their size. None above 1/2, where `1 in 1.6` says less than the percentage beside
/// it, and for an impossible outcome.
pub fn one_in(p: f64, unit: Option<u64>) -> Option<String> {
    if !(p > 0.0 && p <= 0.5) {
        return None;
    }
    if let Some(n) = unit {
        return Some(format!("1 in {}", thousands(n)));
    }
    let x = 1.0 / p;
    let tenths = (x * 10.0).round() / 10.0;
    if tenths < 10.0 {
        return Some(format!("1 in {tenths:.1}"));
    }
    if x >= 1e15 {
        return Some(format!("1 in {x:.2e}"));
    }
    let whole = x.round();
    let digits = whole.log10().floor() as i32 + 1;
    let step = 10f64.powi((digits - 3).max(0));
    Some(format!(
        "1 in {}",
        thousands(((whole / step).round() * step) as u64)
    ))
}

/// Text for a terminal: control characters from a config (an escape sequence that
/// would recolour or clear the screen, a carriage return that would hide a line) are
/// shown escaped, never sent; line breaks and tabs stay.
pub fn terminal_safe(text: &str) -> std::borrow::Cow<'_, str> {
    if !text
        .chars()
        .any(|c| c.is_control() && c != '\n' && c != '\t')
    {
        return std::borrow::Cow::Borrowed(text);
    }
    text.chars()
        .map(|c| {
            if c.is_control() && c != '\n' && c != '\t' {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_percentage_claims_no_certainty_it_does_not_have() {
        for (p, d, shown) in [
            (0.0, 1, "0.0%"),
            (-0.0, 2, "0.00%"),
            (1.0, 1, "100.0%"),
            (0.9997046, 1, ">99.9%"),
            (0.9995, 1, ">99.9%"),
            (3.8e-6, 1, "<0.1%"),
            (0.99958, 2, "99.96%"),
            (0.9999962, 2, ">99.99%"),
            (0.453, 1, "45.3%"),
            (1e-300, 4, "<0.0001%"),
            (0.996, 0, ">99%"),
            (0.5, 0, "50%"),
        ] {
            assert_eq!(percent(p, d), shown, "{p} to {d} decimals");
        }
    }

    #[test]
    fn a_chance_below_one_is_not_shown_as_one() {
        for (v, d, shown) in [
            (0.999989, 3, "9.9999e-1"),
            (0.99996, 3, "9.9996e-1"),
            (0.99996, 1, "9.9996e-1"),
            (0.9996, 3, "9.996e-1"),
            (1.0, 3, "1.000e0"),
            (4.0 / 3.0, 3, "1.333e0"),
            (1e-21, 3, "1.000e-21"),
            (9.9996e-22, 3, "1.000e-21"),
            (1.0 - f64::EPSILON, 3, "9.999999999999998e-1"),
        ] {
            assert_eq!(sci(v, d), shown, "{v} to {d} decimals");
        }
    }

    #[test]
    fn odds_read_aloud() {
        assert_eq!(one_in(1.0 / 8.0, Some(8)).as_deref(), Some("1 in 8"));
        assert_eq!(
            one_in(1.0 / 1296.0, Some(1296)).as_deref(),
            Some("1 in 1,296")
        );
        // 27/216 is 1/8 too; 25/216 is not a unit fraction: 8.64 to one decimal.
        assert_eq!(one_in(25.0 / 216.0, None).as_deref(), Some("1 in 8.6"));
        assert_eq!(one_in(0.13, None).as_deref(), Some("1 in 7.7"));
        assert_eq!(one_in(21.0 / 1296.0, None).as_deref(), Some("1 in 62"));
        assert_eq!(one_in(1.0 / 1679.6, None).as_deref(), Some("1 in 1,680"));
        assert_eq!(one_in(0.5, Some(2)).as_deref(), Some("1 in 2"));
        assert_eq!(one_in(0.6, None), None);
        assert_eq!(one_in(0.0, None), None);
        assert_eq!(one_in(f64::NAN, None), None);
    }

    #[test]
    fn nouns_and_verbs_agree() {
        assert_eq!(plural(1u32, "round", "rounds"), "1 round");
        assert_eq!(plural(3u32, "round", "rounds"), "3 rounds");
        assert_eq!(plural(0u32, "wound", "wounds"), "0 wounds");
        assert_eq!(wins("Archers"), "Archers win");
        assert_eq!(wins("Spearmen"), "Spearmen win");
        assert_eq!(wins("Fighter"), "Fighter wins");
        assert_eq!(wins("Temple Knight"), "Temple Knight wins");
        assert_eq!(wins("Boss"), "Boss wins");
        assert_eq!(
            agrees("Skirmishers", "reacts", "react"),
            "Skirmishers react"
        );
        assert_eq!(possessive("Archers"), "Archers'");
        assert_eq!(possessive("Spearmen"), "Spearmen's");
        assert_eq!(possessive("Orc"), "Orc's");
        assert_eq!(fixed(-0.0001, 2), "0.00");
        assert_eq!(fixed(-0.5, 2), "-0.50");
        assert_eq!(signed(-0.0001, 2), "0.00");
        assert_eq!(signed(0.25, 2), "+0.25");
        assert_eq!(signed(-1.5, 1), "-1.5");
    }
}

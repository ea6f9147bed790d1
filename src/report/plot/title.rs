//! A chart's words: its title and subtitle from a scenario, names as words, and a
//! probability as every chart prints it. Every chart kind and the gallery take them
//! from here, so that all say a scenario alike.

/// A probability as every chart prints it: a percentage with as many decimals as it
/// needs (`45.3%`, `1.15%`, `0.05%`), `<0.01%` below that, and a near-certainty that
/// does not round up to 100% (`99.95%`, `>99.99%`). Never scientific notation.
pub fn percent(p: f64) -> String {
    let p = p.clamp(0.0, 1.0);
    if p == 0.0 {
        "0%".into()
    } else if p < 1e-4 {
        "<0.01%".into()
    } else if p < 0.1 {
        format!("{:.2}%", p * 100.0)
    } else if p < 0.999 || p == 1.0 {
        format!("{:.1}%", p * 100.0)
    } else if p < 0.9999 {
        format!("{:.2}%", p * 100.0)
    } else {
        ">99.99%".into()
    }
}

/// A name as words: `slam-orc-vs-human-guard` reads `Slam orc vs human guard`, a
/// member `crossbow-range@d4` reads `Crossbow range (d4)`.
pub fn words(name: &str) -> String {
    let w = match name.split_once('@') {
        Some((group, member)) => format!("{group} ({member})"),
        None => name.to_string(),
    }
    .replace(['-', '_'], " ");
    capitalised(&w)
}

/// The text with its first letter in upper case.
pub(crate) fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
}

/// A balance chart's lead (a matrix, a sweep, a roster, sensitivity, costs): the
/// designer's words of the scenario's description (before ` — `), else its name in
/// words. The generated words name the one pair the scenario was written for (`Orc slams
/// Human Guard`), which a matrix or a roster is not.
pub fn lead(name: &str, description: &str) -> String {
    match description.split_once(" — ") {
        Some((d, _)) if !d.trim().is_empty() && d.chars().count() <= TITLE => {
            d.split_whitespace().collect::<Vec<_>>().join(" ")
        }
        _ => words(name),
    }
}

/// A title and what the chart shows of it: `Orc slams Human Guard: result`; after a
/// question, a new sentence (`Should they shoot back? Morale of each choice`).
pub fn headed(lead: &str, what: &str) -> String {
    if lead.ends_with(['?', '!', '.']) {
        format!("{lead} {}", capitalised(what))
    } else {
        format!("{lead}: {what}")
    }
}

/// The titles of charts of one scenario, each `lead: what` ([`headed`]) for each of
/// `whats`, and the one subtitle they share ([`titles`]).
pub fn headings(
    name: &str,
    description: &str,
    seed: u64,
    whats: impl Iterator<Item = String>,
) -> (Vec<String>, String) {
    let (lead, subtitle) = titles(name, description, seed);
    (whats.map(|what| headed(&lead, &what)).collect(), subtitle)
}

/// The description at its first `: ` outside brackets: `Broadsword (melee: 2 dice)
/// at 3: no re-roll` splits after `at 3`.
fn split_lead(d: &str) -> Option<(&str, &str)> {
    let mut depth = 0i32;
    for (i, c) in d.char_indices() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            ':' if depth == 0 && d[i + 1..].starts_with(' ') => {
                return Some((&d[..i], &d[i + 2..]));
            }
            _ => {}
        }
    }
    None
}

/// A title in the designer's words over the generated ones and the seed.
fn titled(title: &str, rest: &str, seed: u64) -> (String, String) {
    let seed = format!("seed {seed}");
    let subtitle = if rest.is_empty() {
        seed
    } else {
        format!("{rest} ({seed})")
    };
    (title.to_string(), subtitle)
}

/// Longest title a chart prints before it cuts the rest to the subtitle.
pub(crate) const TITLE: usize = 72;

/// A chart's title and subtitle from a scenario: the designer's description (before
/// ` — `), else the generated description's lead (before its first `:`), else the
/// name in words; the rest of the description and the seed below it.
pub fn titles(name: &str, description: &str, seed: u64) -> (String, String) {
    let description = description.split_whitespace().collect::<Vec<_>>().join(" ");
    let (title, rest) = match description.split_once(" — ") {
        // The designer's words are the title however long: one too wide for the page
        // keeps its first clause there and the rest leads the subtitle (`header`).
        Some((t, r)) if !t.trim().is_empty() => return titled(t, r, seed),
        Some((t, r)) => (t.to_string(), r.to_string()),
        None => match split_lead(&description) {
            Some((t, r)) if t.chars().count() <= TITLE => (t.to_string(), r.to_string()),
            _ if description.chars().count() <= TITLE && !description.is_empty() => {
                (description.clone(), String::new())
            }
            _ => (words(name), description.clone()),
        },
    };
    let title = if title.chars().count() > TITLE {
        words(name)
    } else {
        title
    };
    let seed = format!("seed {seed}");
    let subtitle = if rest.is_empty() {
        seed
    } else {
        format!("{rest} ({seed})")
    };
    (title, subtitle)
}

//! The lexer: the text of an expression as tokens, each at its column.

use super::super::Col;
use super::super::SyntaxError;
use super::hint;

#[derive(Clone, Debug, PartialEq)]
pub(in super::super) enum Tok {
    Int(i64),
    Word(String),
    /// `d` with what follows it: `d6`, `dF`, `d%`, or `d` before `{`.
    Dice(String),
    Sym(&'static str),
    End,
}

pub(super) fn lex(text: &str) -> Result<Vec<(Tok, Col)>, SyntaxError> {
    // Text of one byte per character (every mechanic written in ASCII) is read byte by
    // byte, each word copied out of it at once; other text character by character
    // (decoding the characters and building each word from them was a seventh of a long
    // mechanic's parse).
    if text.is_ascii() {
        lex_in(text.as_bytes(), |from, to| text[from..to].to_string())
    } else {
        let chars: Vec<char> = text.chars().collect();
        lex_in(&chars, |from, to| chars[from..to].iter().collect())
    }
}

/// A character of the text as the lexer reads it: a byte of ASCII text, or a `char`.
trait Unit: Copy {
    fn ch(self) -> char;
}

impl Unit for u8 {
    fn ch(self) -> char {
        char::from(self)
    }
}

impl Unit for char {
    fn ch(self) -> char {
        self
    }
}

/// The tokens of `units` (characters, each a column), a word's text made by `word`.
fn lex_in<U: Unit>(
    units: &[U],
    word: impl Fn(usize, usize) -> String,
) -> Result<Vec<(Tok, Col)>, SyntaxError> {
    let at = |i: usize| units[i].ch();
    let len = units.len();
    // About one token per two characters of a long mechanic: room made once.
    let mut out = Vec::with_capacity(len / 2 + 2);
    let mut i = 0;
    while i < len {
        let c = at(i);
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        let start = i;
        if c.is_ascii_digit() {
            while i < len && (at(i).is_ascii_digit() || at(i) == '_') {
                i += 1;
            }
            // Digits added up as read, not gathered into a string first: a long
            // mechanic is lexed on every roll of it.
            let mut n: i64 = 0;
            for d in (start..i).filter_map(|j| at(j).to_digit(10)) {
                n = n.saturating_mul(10).saturating_add(i64::from(d));
            }
            if n > 1_000_000 {
                return Err(SyntaxError {
                    col: start,
                    message: "a number from 0 to 1,000,000".into(),
                });
            }
            out.push((Tok::Int(n), start));
            continue;
        }
        if c.is_ascii_alphabetic() || c == '_' {
            while i < len && (at(i).is_ascii_alphanumeric() || at(i) == '_') {
                i += 1;
            }
            let w = word(start, i);
            // `d6`, `dF`, `d%`, `d{`: a die, not a name.
            let is_dice = (w == "d" && i < len && (at(i) == '{' || at(i) == '%' || at(i) == '('))
                || (w.len() > 1
                    && w.starts_with('d')
                    && (w[1..].chars().all(|c| c.is_ascii_digit()) || &w[1..] == "F"));
            if is_dice {
                let mut d = w;
                if i < len && at(i) == '%' {
                    d.push('%');
                    i += 1;
                }
                out.push((Tok::Dice(d), start));
            } else {
                out.push((Tok::Word(w), start));
            }
            continue;
        }
        let next = units.get(i + 1).map(|u| u.ch());
        let sym = match (c, next) {
            ('<', Some('=')) => Some("<="),
            ('>', Some('=')) => Some(">="),
            ('=', Some('=')) => Some("=="),
            ('!', Some('=')) => Some("!="),
            ('+', _) => Some("+"),
            ('-', _) => Some("-"),
            ('*', _) => Some("*"),
            ('/', _) => Some("/"),
            ('%', _) => Some("%"),
            ('(', _) => Some("("),
            (')', _) => Some(")"),
            ('[', _) => Some("["),
            (']', _) => Some("]"),
            ('{', _) => Some("{"),
            ('}', _) => Some("}"),
            (',', _) => Some(","),
            ('=', _) => Some("="),
            ('<', _) => Some("<"),
            ('>', _) => Some(">"),
            _ => None,
        };
        match sym {
            Some(s) => {
                i += s.len();
                out.push((Tok::Sym(s), start));
            }
            None => {
                let hint = hint::unexpected(c, next, out.last());
                return Err(SyntaxError {
                    col: start,
                    message: format!("unexpected `{c}`{hint}"),
                });
            }
        }
    }
    out.push((Tok::End, len));
    Ok(out)
}

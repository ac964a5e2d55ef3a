//! Tokens of the expression language, each with the character offset it starts at.
//!
//! Punctuation, connectives and comparisons are the language's own; everything else is a
//! word (a maximal run of other characters), a quoted string or a JSON literal, which each
//! dialect's terms read in their own way (`len(x)`, `reader(r)`, `-2.5`, `${v}`, `[]`).

use crate::engine::ir::CmpOp;

use super::{ExprError, MAX_CHARS};

#[derive(Debug, Clone, PartialEq)]
pub enum Tok {
    Open,
    Close,
    And,
    Or,
    Not,
    Op(CmpOp),
    /// A quoted string, escapes decoded.
    Str(String),
    /// A JSON array or object literal as written (`[]`, `{}`).
    Json(String),
    Word(String),
}

impl Tok {
    /// How an error names the token.
    pub fn describe(&self) -> String {
        match self {
            Tok::Close => "`)`".into(),
            Tok::Op(op) => format!("`{}`", op.as_str()),
            Tok::And => "`&&`".into(),
            Tok::Or => "`||`".into(),
            _ => "token".into(),
        }
    }
}

/// Characters that end a word: they are tokens of their own (or start one).
const DELIMITERS: &str = "()!=<>&|≥≤≠\"'";

/// The tokens of `src`, refusing text longer than [`MAX_CHARS`].
pub fn lex(src: &str) -> Result<Vec<(Tok, usize)>, ExprError> {
    let cs: Vec<char> = src.chars().collect();
    if cs.len() > MAX_CHARS {
        return Err(ExprError::at(
            MAX_CHARS,
            format!("expression longer than {MAX_CHARS} characters"),
        ));
    }
    let mut out = Vec::new();
    let mut i = 0;
    while i < cs.len() {
        if cs[i].is_whitespace() {
            i += 1;
            continue;
        }
        let (tok, next) = token(&cs, i)?;
        out.push((tok, i));
        i = next;
    }
    Ok(out)
}

/// The token starting at `i`, and where the next one may start.
fn token(cs: &[char], i: usize) -> Result<(Tok, usize), ExprError> {
    if let Some(tok) = operator(cs[i], cs.get(i + 1).copied()) {
        let width = match tok {
            Tok::And | Tok::Or => 2,
            Tok::Op(CmpOp::Eq | CmpOp::Ne | CmpOp::Le | CmpOp::Ge) if cs[i].is_ascii() => 2,
            _ => 1,
        };
        return Ok((tok, i + width));
    }
    match cs[i] {
        '=' => Err(ExprError::at(
            i,
            "`=` is not an operator: write `==` to compare",
        )),
        '&' | '|' => Err(ExprError::at(
            i,
            format!(
                "unexpected `{}`: expected a value, a name, a comparison, &&, || or !",
                cs[i]
            ),
        )),
        '"' | '\'' => string(cs, i).map(|(s, next)| (Tok::Str(s), next)),
        '[' | '{' => json_literal(cs, i),
        _ => Ok(word(cs, i)),
    }
}

/// Punctuation, connectives and comparisons (`≥ ≤ ≠` are one character each).
fn operator(c: char, next: Option<char>) -> Option<Tok> {
    Some(match (c, next) {
        ('&', Some('&')) => Tok::And,
        ('|', Some('|')) => Tok::Or,
        ('=', Some('=')) => Tok::Op(CmpOp::Eq),
        ('!', Some('=')) => Tok::Op(CmpOp::Ne),
        ('<', Some('=')) => Tok::Op(CmpOp::Le),
        ('>', Some('=')) => Tok::Op(CmpOp::Ge),
        ('<', _) => Tok::Op(CmpOp::Lt),
        ('>', _) => Tok::Op(CmpOp::Gt),
        ('≥', _) => Tok::Op(CmpOp::Ge),
        ('≤', _) => Tok::Op(CmpOp::Le),
        ('≠', _) => Tok::Op(CmpOp::Ne),
        ('!', _) => Tok::Not,
        ('(', _) => Tok::Open,
        (')', _) => Tok::Close,
        _ => return None,
    })
}

/// A word; `and`, `or`, `not` and `contains` are connectives and a comparison.
fn word(cs: &[char], start: usize) -> (Tok, usize) {
    let end = cs[start..]
        .iter()
        .position(|c| c.is_whitespace() || DELIMITERS.contains(*c))
        .map_or(cs.len(), |p| start + p);
    let w: String = cs[start..end].iter().collect();
    let tok = match w.as_str() {
        "and" => Tok::And,
        "or" => Tok::Or,
        "not" => Tok::Not,
        "contains" => Tok::Op(CmpOp::Contains),
        _ => Tok::Word(w),
    };
    (tok, end)
}

/// A JSON array or object literal, up to the first closing bracket of its kind (`[]`, `{}`,
/// `["a"]`): the dialect parses it as JSON.
fn json_literal(cs: &[char], start: usize) -> Result<(Tok, usize), ExprError> {
    let close = if cs[start] == '[' { ']' } else { '}' };
    let end = cs[start..]
        .iter()
        .position(|&c| c == close)
        .ok_or_else(|| ExprError::at(start, "unclosed JSON literal"))?;
    let text: String = cs[start..=start + end].iter().collect();
    Ok((Tok::Json(text), start + end + 1))
}

/// A string in single or double quotes, with JSON's escapes and `\'`.
fn string(cs: &[char], start: usize) -> Result<(String, usize), ExprError> {
    let quote = cs[start];
    let mut s = String::new();
    let mut i = start + 1;
    while i < cs.len() {
        let c = cs[i];
        if c == quote {
            return Ok((s, i + 1));
        }
        if c != '\\' {
            s.push(c);
            i += 1;
            continue;
        }
        let Some(&e) = cs.get(i + 1) else { break };
        let (ch, width) = escape(cs, i, e)?;
        s.push(ch);
        i += width;
    }
    Err(ExprError::at(start, "unclosed string"))
}

/// The character an escape at `i` stands for, and how many characters it takes.
fn escape(cs: &[char], i: usize, e: char) -> Result<(char, usize), ExprError> {
    Ok(match e {
        'n' => ('\n', 2),
        't' => ('\t', 2),
        'r' => ('\r', 2),
        'b' => ('\u{8}', 2),
        'f' => ('\u{c}', 2),
        '/' | '\\' | '"' | '\'' => (e, 2),
        'u' => {
            let hex: String = cs.get(i + 2..i + 6).unwrap_or(&[]).iter().collect();
            let ch = u32::from_str_radix(&hex, 16)
                .ok()
                .and_then(char::from_u32)
                .ok_or_else(|| {
                    ExprError::at(i, "`\\u` needs four hex digits of a valid character")
                })?;
            (ch, 6)
        }
        _ => return Err(ExprError::at(i, format!("unknown escape `\\{e}`"))),
    })
}

//! Tokens of a guard expression (see `guard_expr` for the grammar): words, strings, numbers,
//! JSON literals, comparison and boolean operators, parentheses; positions are character
//! offsets for errors.

use crate::engine::ir::CmpOp;

use super::label::LabelError;

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Tok {
    Word(String),
    Str(String),
    Num(f64),
    Op(CmpOp),
    And,
    Or,
    Not,
    Open,
    Close,
}

pub(super) fn lex(text: &str) -> Result<Vec<(usize, Tok)>, LabelError> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let fail = |col: usize, m: &str| LabelError {
        limit: false,
        col,
        message: m.to_string(),
    };
    while i < chars.len() {
        let c = chars[i];
        let two: String = chars[i..chars.len().min(i + 2)].iter().collect();
        let start = i;
        let tok = match (c, two.as_str()) {
            (c, _) if c.is_whitespace() => {
                i += 1;
                continue;
            }
            (_, "&&") | (_, "||") | (_, "==") | (_, "!=") | (_, "<=") | (_, ">=") => {
                i += 2;
                match two.as_str() {
                    "&&" => Tok::And,
                    "||" => Tok::Or,
                    "==" => Tok::Op(CmpOp::Eq),
                    "!=" => Tok::Op(CmpOp::Ne),
                    "<=" => Tok::Op(CmpOp::Le),
                    _ => Tok::Op(CmpOp::Ge),
                }
            }
            ('<', _)
            | ('>', _)
            | ('≥', _)
            | ('≤', _)
            | ('≠', _)
            | ('!', _)
            | ('(', _)
            | (')', _) => {
                i += 1;
                match c {
                    '<' => Tok::Op(CmpOp::Lt),
                    '>' => Tok::Op(CmpOp::Gt),
                    '≥' => Tok::Op(CmpOp::Ge),
                    '≤' => Tok::Op(CmpOp::Le),
                    '≠' => Tok::Op(CmpOp::Ne),
                    '!' => Tok::Not,
                    '(' => Tok::Open,
                    _ => Tok::Close,
                }
            }
            ('"', _) | ('\'', _) => {
                let end = chars[i + 1..]
                    .iter()
                    .position(|&x| x == c)
                    .ok_or_else(|| fail(i, "unterminated string in guard"))?;
                let s: String = chars[i + 1..i + 1 + end].iter().collect();
                i += end + 2;
                Tok::Str(s)
            }
            ('[', _) | ('{', _) => {
                // A JSON literal such as `[]` or `{}`.
                let close = if c == '[' { ']' } else { '}' };
                let end = chars[i..]
                    .iter()
                    .position(|&x| x == close)
                    .ok_or_else(|| fail(i, "unclosed JSON literal in guard"))?;
                let s: String = chars[i..=i + end].iter().collect();
                i += end + 1;
                Tok::Str(format!("\u{0}{s}"))
            }
            _ => {
                let end = chars[i..]
                    .iter()
                    .position(|x| x.is_whitespace() || "()!=<>&|≥≤≠\"'".contains(*x))
                    .map(|p| i + p)
                    .unwrap_or(chars.len());
                if end == i {
                    return Err(fail(i, &format!("unexpected `{c}` in guard")));
                }
                let w: String = chars[i..end].iter().collect();
                i = end;
                match w.parse::<f64>() {
                    Ok(n) if n.is_finite() => Tok::Num(n),
                    _ => Tok::Word(w),
                }
            }
        };
        out.push((start, tok));
    }
    Ok(out)
}

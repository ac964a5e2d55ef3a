//! Tokens of the expression language (see `expr.rs`), with character offsets for errors.

use serde_json::Value;

use super::expr::{ExprError, MAX_CHARS};
use crate::engine::ir::CmpOp;

#[derive(Debug, Clone, PartialEq)]
pub enum Tok {
    Num(Value),
    Str(String),
    Path(String),
    Len,
    LParen,
    RParen,
    Op(CmpOp),
    And,
    Or,
    Not,
    Minus,
    Lit(Value),
}

pub fn err<T>(offset: usize, message: impl Into<String>) -> Result<T, ExprError> {
    Err(ExprError {
        offset,
        message: message.into(),
    })
}

pub fn lex(src: &str) -> Result<Vec<(Tok, usize)>, ExprError> {
    let cs: Vec<char> = src.chars().collect();
    if cs.len() > MAX_CHARS {
        return err(
            MAX_CHARS,
            format!("expression longer than {MAX_CHARS} characters"),
        );
    }
    let mut out = Vec::new();
    let mut i = 0;
    while i < cs.len() {
        let c = cs[i];
        let start = i;
        let two = |a: char, b: char| c == a && cs.get(i + 1) == Some(&b);
        let tok = if c.is_whitespace() {
            i += 1;
            continue;
        } else if c == '(' {
            i += 1;
            Tok::LParen
        } else if c == ')' {
            i += 1;
            Tok::RParen
        } else if two('&', '&') || two('|', '|') {
            i += 2;
            if c == '&' { Tok::And } else { Tok::Or }
        } else if two('=', '=') || two('!', '=') || two('<', '=') || two('>', '=') {
            i += 2;
            Tok::Op(match c {
                '=' => CmpOp::Eq,
                '!' => CmpOp::Ne,
                '<' => CmpOp::Le,
                _ => CmpOp::Ge,
            })
        } else if c == '<' || c == '>' {
            i += 1;
            Tok::Op(if c == '<' { CmpOp::Lt } else { CmpOp::Gt })
        } else if c == '!' {
            i += 1;
            Tok::Not
        } else if c == '-' {
            i += 1;
            Tok::Minus
        } else if c == '=' {
            return err(i, "`=` is not an operator: write `==` to compare");
        } else if c == '"' || c == '\'' {
            let (s, next) = lex_string(&cs, i)?;
            i = next;
            Tok::Str(s)
        } else if c.is_ascii_digit() {
            while i < cs.len() && (cs[i].is_ascii_digit() || cs[i] == '.') {
                i += 1;
            }
            if i < cs.len() && (cs[i] == 'e' || cs[i] == 'E') {
                i += 1;
                if i < cs.len() && (cs[i] == '+' || cs[i] == '-') {
                    i += 1;
                }
                while i < cs.len() && cs[i].is_ascii_digit() {
                    i += 1;
                }
            }
            let text: String = cs[start..i].iter().collect();
            Tok::Num(number(&text).ok_or(ExprError {
                offset: start,
                message: format!("`{text}` is not a number"),
            })?)
        } else if c == '$' && cs.get(i + 1) == Some(&'{') {
            let close = (i + 2..cs.len()).find(|&j| cs[j] == '}');
            let Some(close) = close else {
                return err(i, "unclosed `${`");
            };
            let name: String = cs[i + 2..close].iter().collect();
            if !valid_path(&name) {
                return err(i + 2, format!("`{name}` is not a variable name"));
            }
            i = close + 1;
            Tok::Path(name)
        } else if c.is_ascii_alphabetic() || c == '_' {
            while i < cs.len() && (cs[i].is_ascii_alphanumeric() || cs[i] == '_' || cs[i] == '.') {
                i += 1;
            }
            let word: String = cs[start..i].iter().collect();
            match word.as_str() {
                "true" => Tok::Lit(Value::Bool(true)),
                "false" => Tok::Lit(Value::Bool(false)),
                "null" => Tok::Lit(Value::Null),
                "and" => Tok::And,
                "or" => Tok::Or,
                "not" => Tok::Not,
                "contains" => Tok::Op(CmpOp::Contains),
                "len" => Tok::Len,
                _ if valid_path(&word) => Tok::Path(word),
                _ => return err(start, format!("`{word}` is not a variable path")),
            }
        } else {
            return err(
                i,
                format!(
                    "unexpected `{c}`: expected a value, a variable, len(…), a comparison, &&, || or !"
                ),
            );
        };
        out.push((tok, start));
    }
    Ok(out)
}

fn valid_path(p: &str) -> bool {
    let mut parts = p.split('.');
    let head_ok = parts.next().is_some_and(|h| {
        h.chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && h.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    });
    head_ok
        && parts.all(|s| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
}

fn number(text: &str) -> Option<Value> {
    if let Ok(n) = text.parse::<i64>() {
        return Some(Value::from(n));
    }
    let f = text.parse::<f64>().ok().filter(|f| f.is_finite())?;
    serde_json::Number::from_f64(f).map(Value::Number)
}

fn lex_string(cs: &[char], start: usize) -> Result<(String, usize), ExprError> {
    let quote = cs[start];
    let mut s = String::new();
    let mut i = start + 1;
    while i < cs.len() {
        let c = cs[i];
        if c == quote {
            return Ok((s, i + 1));
        }
        if c == '\\' {
            let Some(&e) = cs.get(i + 1) else { break };
            match e {
                'n' => s.push('\n'),
                't' => s.push('\t'),
                'r' => s.push('\r'),
                'b' => s.push('\u{8}'),
                'f' => s.push('\u{c}'),
                '/' | '\\' | '"' | '\'' => s.push(e),
                'u' => {
                    let hex: String = cs.get(i + 2..i + 6).unwrap_or(&[]).iter().collect();
                    let ch = u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32);
                    let Some(ch) = ch else {
                        return err(i, "`\\u` needs four hex digits of a valid character");
                    };
                    s.push(ch);
                    i += 4;
                }
                _ => return err(i, format!("unknown escape `\\{e}`")),
            }
            i += 2;
            continue;
        }
        s.push(c);
        i += 1;
    }
    err(start, "unclosed string")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_carry_character_offsets() {
        let toks = lex("a == 'é' && len(b.c) || !${d}").unwrap();
        let offsets: Vec<usize> = toks.iter().map(|(_, o)| *o).collect();
        assert_eq!(offsets, [0, 2, 5, 9, 12, 15, 16, 19, 21, 24, 25]);
        assert_eq!(toks[2].0, Tok::Str("é".into()));
        assert_eq!(toks[10].0, Tok::Path("d".into()));
    }

    #[test]
    fn numbers_and_escapes() {
        let num = |s: &str| lex(s).unwrap().remove(0).0;
        assert_eq!(num("12"), Tok::Num(Value::from(12)));
        assert_eq!(num("1.5e3"), Tok::Num(Value::from(1500.0)));
        assert_eq!(num("'a\\'b\\u00e9'"), Tok::Str("a'bé".into()));
        assert!(lex("1e999").is_err(), "not finite");
        assert!(lex("'\\u12'").is_err());
    }
}

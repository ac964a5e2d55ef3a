//! `evaluate_expression` / `evaluate`: the shared expression language ([`crate::dialects::expr`])
//! with the workflow's terms, compiled to typed guards.
//!
//! ```text
//! term    := literal | path | "len(" path ")" | "-" number
//! literal := number | "string" | 'string' | true | false | null
//! path    := name { "." (name | digits) }       also written ${name}
//! ```
//!
//! A comparison sets a variable (or `len(variable)`) against a literal; a bare path is "set and
//! not false"; `flags.x` (or a declared flag's bare name) reads a flag.

use std::fmt;

use serde_json::Value;

pub use super::expr_guard::{compile, to_guard};
use crate::dialects::expr::{self, Cursor, Terms, lex::Tok};
pub use crate::dialects::expr::{ExprError, MAX_CHARS, MAX_DEPTH};

/// A workflow expression.
pub type Expr = expr::Expr<Term>;
pub use crate::dialects::expr::Kind;

#[derive(Debug, Clone, PartialEq)]
pub enum Term {
    Lit(Value),
    Path(String),
    Len(String),
}

impl fmt::Display for Term {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Term::Lit(v) => write!(f, "{v}"),
            Term::Path(p) => f.write_str(p),
            Term::Len(p) => write!(f, "len({p})"),
        }
    }
}

/// Parse expression text.
pub fn parse(src: &str) -> Result<Expr, ExprError> {
    expr::parse(&WorkflowTerms, src)
}

struct WorkflowTerms;

impl Terms for WorkflowTerms {
    type Term = Term;
    const WHAT: &'static str = "expression";

    fn term(&self, c: &mut Cursor) -> Result<Term, ExprError> {
        let at = c.at();
        match c.bump() {
            Some(Tok::Str(s)) => Ok(Term::Lit(Value::String(s))),
            Some(Tok::Word(w)) if w == "len" => len(c),
            Some(Tok::Word(w)) if w == "-" => negative_number(c, at),
            Some(Tok::Word(w)) => word(&w, at),
            Some(Tok::Json(text)) => Err(unexpected(text.chars().next().unwrap_or('['), at)),
            _ => Err(ExprError::at(at, "expected a value or a variable")),
        }
    }
}

/// `len(path)`, after the `len`.
fn len(c: &mut Cursor) -> Result<Term, ExprError> {
    c.expect(&Tok::Open, "`(` after len")?;
    let at = c.at();
    let path = match c.bump() {
        Some(Tok::Word(w)) => match word(&w, at) {
            Ok(Term::Path(p)) => Some(p),
            _ => None,
        },
        _ => None,
    };
    let Some(path) = path else {
        return Err(ExprError::at(at, "len(…) takes a variable path"));
    };
    c.expect(&Tok::Close, "`)` to close len(")?;
    Ok(Term::Len(path))
}

/// `- 2`: a minus written apart from its number.
fn negative_number(c: &mut Cursor, at: usize) -> Result<Term, ExprError> {
    let n = match c.peek() {
        Some(Tok::Word(w)) => number(w).filter(|_| w.starts_with(|d: char| d.is_ascii_digit())),
        _ => None,
    };
    match n {
        Some(v) => {
            c.bump();
            Ok(Term::Lit(negate(&v)))
        }
        None => Err(ExprError::at(at, "`-` must be followed by a number")),
    }
}

/// A word: a keyword literal, a number, `-number`, `${path}` or a path.
fn word(w: &str, at: usize) -> Result<Term, ExprError> {
    match w {
        "true" => return Ok(Term::Lit(Value::Bool(true))),
        "false" => return Ok(Term::Lit(Value::Bool(false))),
        "null" => return Ok(Term::Lit(Value::Null)),
        _ => {}
    }
    if w.starts_with(|c: char| c.is_ascii_digit()) {
        return number(w)
            .map(Term::Lit)
            .ok_or_else(|| ExprError::at(at, format!("`{w}` is not a number")));
    }
    if let Some(digits) = w.strip_prefix('-') {
        return number(digits)
            .filter(|_| digits.starts_with(|d: char| d.is_ascii_digit()))
            .map(|v| Term::Lit(negate(&v)))
            .ok_or_else(|| ExprError::at(at, "`-` must be followed by a number"));
    }
    if let Some(inner) = w.strip_prefix("${") {
        return braced_path(inner, at);
    }
    if valid_path(w) {
        return Ok(Term::Path(w.to_string()));
    }
    match w
        .char_indices()
        .find(|(_, c)| !(c.is_ascii_alphanumeric() || *c == '_' || *c == '.'))
    {
        Some((_, c)) => {
            let offset = at + w.chars().take_while(|x| *x != c).count();
            Err(unexpected(c, offset))
        }
        None => Err(ExprError::at(at, format!("`{w}` is not a variable path"))),
    }
}

/// `${name}`, after the `${`.
fn braced_path(inner: &str, at: usize) -> Result<Term, ExprError> {
    let Some(close) = inner.find('}') else {
        return Err(ExprError::at(at, "unclosed `${`"));
    };
    let name = &inner[..close];
    if !valid_path(name) {
        return Err(ExprError::at(
            at + 2,
            format!("`{name}` is not a variable name"),
        ));
    }
    match inner[close + 1..].chars().next() {
        Some(c) => Err(unexpected(c, at + 2 + name.chars().count() + 1)),
        None => Ok(Term::Path(name.to_string())),
    }
}

fn unexpected(c: char, at: usize) -> ExprError {
    ExprError::at(
        at,
        format!(
            "unexpected `{c}`: expected a value, a variable, len(…), a comparison, &&, || or !"
        ),
    )
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

/// Digits with an optional fraction and exponent, as JSON numbers are written.
fn number(text: &str) -> Option<Value> {
    let shaped = text
        .chars()
        .all(|c| c.is_ascii_digit() || "+-.eE".contains(c));
    if !shaped {
        return None;
    }
    if let Ok(n) = text.parse::<i64>() {
        return Some(Value::from(n));
    }
    let f = text.parse::<f64>().ok().filter(|f| f.is_finite())?;
    serde_json::Number::from_f64(f).map(Value::Number)
}

fn negate(v: &Value) -> Value {
    match v.as_i64() {
        Some(n) if n != i64::MIN => Value::from(-n),
        _ => v
            .as_f64()
            .and_then(|f| serde_json::Number::from_f64(-f))
            .map(Value::Number)
            .unwrap_or(Value::Null),
    }
}

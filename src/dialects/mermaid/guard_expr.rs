//! Guards of the label mini-language: the shared expression language
//! ([`crate::dialects::expr`]) with Mermaid's terms, parsed into an unresolved tree (state
//! names in `in(…)` are resolved when the chart is assembled).
//!
//! ```text
//! term  := flag NAME | in(STATE) | reader(NAME) | input.PATH | input.PATH in NAME
//!        | result[.PATH] | NAME | value
//! value := "text" | 'text' | number | true | false | null | [] | {} | word
//! ```
//!
//! A bare name is a flag; `NAME OP value` compares a variable, `reader(NAME) OP value` a
//! reader (which needs the comparison), `input.PATH == value` the call's input,
//! `result[.PATH] OP value` the call's result (which needs the comparison too), and
//! `input.PATH in NAME` holds when the input value is covered by list variable NAME.

use std::fmt;

use serde_json::Value;

use super::label::LabelError;
use crate::dialects::expr::{self, Cursor, ExprError, Kind, Terms, lex::Tok};
use crate::engine::ir::{CmpOp, Guard, InputMatcher, StateId};

/// A guard as written, `in(…)` unresolved.
pub type GuardExpr = expr::Expr<Term>;

#[derive(Debug, Clone, PartialEq)]
pub enum Term {
    /// A name (a flag alone, a variable on the left of a comparison) or a bare value.
    Word(String),
    Str(String),
    Num(f64),
    /// A JSON literal, as written and as read.
    Json(String, Value),
    Flag(String),
    In(String),
    Reader(String),
    /// `input.PATH in NAME`: the pointer and the list variable.
    InList(String, String),
}

impl fmt::Display for Term {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Term::Word(w) => f.write_str(w),
            Term::Str(s) => write!(f, "{}", Value::String(s.clone())),
            Term::Num(n) => write!(f, "{n}"),
            Term::Json(text, _) => f.write_str(text),
            Term::Flag(n) => write!(f, "flag {n}"),
            Term::In(s) => write!(f, "in({})", Value::String(s.clone())),
            Term::Reader(r) => write!(f, "reader({})", Value::String(r.clone())),
            Term::InList(p, list) => {
                write!(
                    f,
                    "input.{} in {list}",
                    p.trim_start_matches('/').replace('/', ".")
                )
            }
        }
    }
}

struct MermaidTerms;

impl Terms for MermaidTerms {
    type Term = Term;
    const WHAT: &'static str = "guard";

    fn term(&self, c: &mut Cursor) -> Result<Term, ExprError> {
        let at = c.at();
        match c.bump() {
            Some(Tok::Word(w)) if w == "flag" => match c.bump() {
                Some(Tok::Word(name)) => Ok(Term::Flag(name)),
                _ => Err(ExprError::at(at, "expected a flag name after `flag`")),
            },
            Some(Tok::Word(w)) if w == "in" && c.peek() == Some(&Tok::Open) => {
                call_arg(c, "in").map(Term::In)
            }
            Some(Tok::Word(w)) if w == "reader" && c.peek() == Some(&Tok::Open) => {
                call_arg(c, "reader").map(Term::Reader)
            }
            Some(Tok::Word(w))
                if w.starts_with("input.") && c.peek() == Some(&Tok::Word("in".into())) =>
            {
                c.bump();
                let at = c.at();
                match c.bump() {
                    Some(Tok::Word(list)) if super::label::is_name(&list) => {
                        Ok(Term::InList(pointer_of(&w["input.".len()..]), list))
                    }
                    _ => Err(ExprError::at(
                        at,
                        "expected a list variable's name after `in`",
                    )),
                }
            }
            Some(Tok::Word(w)) => Ok(match w.parse::<f64>() {
                Ok(n) if n.is_finite() => Term::Num(n),
                _ => Term::Word(w),
            }),
            Some(Tok::Str(s)) => Ok(Term::Str(s)),
            Some(Tok::Json(text)) => match serde_json::from_str(&text) {
                Ok(v) => Ok(Term::Json(text, v)),
                Err(_) => Err(ExprError::at(at, format!("`{text}` is not a JSON value"))),
            },
            _ => Err(ExprError::at(at, "expected a condition")),
        }
    }

    fn alone(&self, term: &Term) -> Option<String> {
        match term {
            Term::Reader(_) => {
                Some("expected a comparison (==, !=, <, <=, >, >=, contains)".into())
            }
            Term::Word(w) if is_result(w) => Some(format!(
                "`{w}` reads the call's result: compare it (`{w} contains \"text\"`, `{w} == \"\"`)"
            )),
            _ => None,
        }
    }
}

/// `(arg)` right after `in` or `reader`.
fn call_arg(c: &mut Cursor, what: &str) -> Result<String, ExprError> {
    c.expect(&Tok::Open, &format!("`(` after `{what}`"))?;
    let at = c.at();
    let arg = match c.bump() {
        Some(Tok::Word(w) | Tok::Str(w)) => w,
        _ => {
            return Err(ExprError::at(
                at,
                format!("expected a name inside `{what}(…)`"),
            ));
        }
    };
    c.expect(&Tok::Close, &format!("`)` to close `{what}(`"))?;
    Ok(arg)
}

/// Parse a guard expression (the text between `[` and `]`).
pub fn parse(text: &str) -> Result<GuardExpr, LabelError> {
    let to_label = |e: ExprError| LabelError {
        limit: e.limit,
        col: e.offset,
        message: e.message,
    };
    let g = expr::parse(&MermaidTerms, text).map_err(to_label)?;
    check(&g).map_err(to_label)?;
    Ok(g)
}

/// Every part is a condition Mermaid can express: a comparison has a name or `reader(…)` on
/// its left and a value on its right; a term alone is a name, `flag x` or `in(…)`.
fn check(e: &GuardExpr) -> Result<(), ExprError> {
    match &e.kind {
        Kind::And(v) | Kind::Or(v) => v.iter().try_for_each(check),
        Kind::Not(g) => check(g),
        Kind::Term(Term::Word(_) | Term::Flag(_) | Term::In(_) | Term::InList(..)) => Ok(()),
        Kind::Term(_) => Err(ExprError::at(e.at, A_CONDITION)),
        Kind::Cmp(_, l, r) => {
            let named = match l.term() {
                Some(Term::Word(w)) => !matches!(w.as_str(), "true" | "false"),
                Some(Term::Reader(_)) => true,
                _ => false,
            };
            if !named {
                return Err(ExprError::at(l.at, A_CONDITION));
            }
            match r.term() {
                Some(Term::Word(_) | Term::Str(_) | Term::Num(_) | Term::Json(..)) => Ok(()),
                _ => Err(ExprError::at(r.at, "expected a value after the comparison")),
            }
        }
    }
}

/// `a.b` → `/a/b`.
fn pointer_of(path: &str) -> String {
    format!("/{}", path.replace('.', "/"))
}

/// `result` or `result.PATH`: the call's result.
fn is_result(w: &str) -> bool {
    w == "result" || w.starts_with("result.")
}

fn word_value(w: &str) -> Value {
    match w {
        "true" => Value::Bool(true),
        "false" => Value::Bool(false),
        "null" => Value::Null,
        other => Value::String(other.to_string()),
    }
}

/// A value on the right of an assignment: JSON (`"x"`, `3`, `true`, `[]`) or a bare word.
pub fn parse_value(text: &str) -> Result<Value, String> {
    let t = text.trim();
    if t.is_empty() {
        return Err("missing value after `=`".into());
    }
    if let Some(s) = t.strip_prefix('\'').and_then(|s| s.strip_suffix('\'')) {
        return Ok(Value::String(s.to_string()));
    }
    match serde_json::from_str::<Value>(t) {
        Ok(v) => Ok(v),
        Err(_) if t.starts_with(['"', '[', '{']) => Err(format!("`{t}` is not a valid value")),
        Err(_) => Ok(word_value(t)),
    }
}

impl GuardExpr {
    /// The IR guard, with `in(…)` names resolved by `state`.
    pub fn to_guard(
        &self,
        state: &mut dyn FnMut(&str) -> Result<StateId, String>,
    ) -> Result<Guard, String> {
        let mut all = |items: &[GuardExpr]| -> Result<Vec<Guard>, String> {
            items.iter().map(|g| g.to_guard(state)).collect()
        };
        Ok(match &self.kind {
            Kind::And(v) => Guard::All { of: all(v)? },
            Kind::Or(v) => Guard::Any { of: all(v)? },
            Kind::Not(g) => not(g.to_guard(state)?),
            Kind::Term(t) => alone(t, state)?,
            Kind::Cmp(op, l, r) => compare(*op, l, r)?,
        })
    }
}

fn not(g: Guard) -> Guard {
    Guard::Not { guard: Box::new(g) }
}

const A_CONDITION: &str = "expected a condition (flag x, in(State), x == v, reader(r) > n…)";

/// A term as a condition: `true`, `false`, a flag, `in(State)`.
fn alone(
    t: &Term,
    state: &mut dyn FnMut(&str) -> Result<StateId, String>,
) -> Result<Guard, String> {
    Ok(match t {
        Term::Word(w) if w == "true" => Guard::True,
        Term::Word(w) if w == "false" => not(Guard::True),
        Term::Word(name) | Term::Flag(name) => Guard::Flag { name: name.clone() },
        Term::In(name) => Guard::In {
            state: state(name)?,
        },
        Term::InList(pointer, var) => Guard::InList {
            pointer: pointer.clone(),
            var: var.clone(),
        },
        _ => return Err(A_CONDITION.into()),
    })
}

/// `NAME OP value`, `reader(r) OP value`, `input.PATH OP value`.
fn compare(op: CmpOp, l: &GuardExpr, r: &GuardExpr) -> Result<Guard, String> {
    let value = match r.term() {
        Some(Term::Word(w)) => word_value(w),
        Some(Term::Str(s)) => Value::String(s.clone()),
        Some(Term::Num(n)) => serde_json::Number::from_f64(*n).map_or(Value::Null, Value::Number),
        Some(Term::Json(_, v)) => v.clone(),
        // `check` let only values through.
        _ => Value::Null,
    };
    match l.term() {
        Some(Term::Reader(name)) => Ok(Guard::Reader {
            name: name.clone(),
            op,
            value,
        }),
        Some(Term::Word(w)) if is_result(w) => Ok(Guard::Result {
            pointer: w
                .strip_prefix("result.")
                .map(pointer_of)
                .unwrap_or_default(),
            op,
            value,
        }),
        Some(Term::Word(w)) => match w.strip_prefix("input.") {
            Some(path) => input(&format!("/{}", path.replace('.', "/")), op, value),
            None => Ok(Guard::Var {
                name: w.clone(),
                op,
                value,
            }),
        },
        _ => Err(A_CONDITION.into()),
    }
}

/// The call's input at `pointer`: equal (a string with `*` or `?` is a glob), or not.
fn input(pointer: &str, op: CmpOp, value: Value) -> Result<Guard, String> {
    let matcher = match value {
        Value::String(s) if s.contains(['*', '?']) => InputMatcher::Glob(s),
        v => InputMatcher::Equals(v),
    };
    let g = Guard::Input {
        pointer: pointer.to_string(),
        matcher,
    };
    match op {
        CmpOp::Eq => Ok(g),
        CmpOp::Ne => Ok(not(g)),
        _ => Err(format!(
            "input.{} supports only == and !=",
            pointer.trim_start_matches('/').replace('/', ".")
        )),
    }
}

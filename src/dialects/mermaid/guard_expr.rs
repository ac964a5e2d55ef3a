//! Guard expressions of the label mini-language, parsed into an unresolved tree (state names
//! in `in(…)` are resolved when the chart is assembled).
//!
//! ```text
//! expr    := and { '||' and }
//! and     := unary { '&&' unary }
//! unary   := '!' unary | '(' expr ')' | atom
//! atom    := true | false | flag NAME | in(STATE) | reader(NAME) OP value
//!          | input.PATH OP value | NAME OP value | NAME          (a bare name is a flag)
//! OP      := == | != | < | <= | > | >= | contains   (also ≥ ≤ ≠)
//! value   := "text" | 'text' | number | true | false | null | [] | {} | word
//! ```

use serde_json::Value;

use super::guard_lex::{Tok, lex};
use super::label::LabelError;
use crate::engine::ir::{CmpOp, Guard, InputMatcher, StateId};

#[derive(Debug, Clone, PartialEq)]
pub enum GuardExpr {
    Const(bool),
    And(Vec<GuardExpr>),
    Or(Vec<GuardExpr>),
    Not(Box<GuardExpr>),
    Flag(String),
    In(String),
    Var(String, CmpOp, Value),
    Reader(String, CmpOp, Value),
    Input(String, CmpOp, Value),
}

/// Parentheses and `!` nested deeper than this are refused: the parser and every pass over
/// a guard recurse once per level (the workflow dialect's expressions have the same limit).
pub const MAX_GUARD_DEPTH: usize = 64;

struct P {
    toks: Vec<(usize, Tok)>,
    pos: usize,
    len: usize,
    depth: usize,
}

impl P {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|(_, t)| t)
    }
    fn col(&self) -> usize {
        self.toks.get(self.pos).map(|(c, _)| *c).unwrap_or(self.len)
    }
    fn next(&mut self) -> Option<Tok> {
        let t = self.toks.get(self.pos).map(|(_, t)| t.clone());
        self.pos += 1;
        t
    }
    fn fail<T>(&self, m: impl Into<String>) -> Result<T, LabelError> {
        Err(LabelError {
            limit: false,
            col: self.col(),
            message: m.into(),
        })
    }

    fn expr(&mut self) -> Result<GuardExpr, LabelError> {
        let mut parts = vec![self.and()?];
        while self.peek() == Some(&Tok::Or) {
            self.pos += 1;
            parts.push(self.and()?);
        }
        Ok(if parts.len() == 1 {
            parts.remove(0)
        } else {
            GuardExpr::Or(parts)
        })
    }

    fn and(&mut self) -> Result<GuardExpr, LabelError> {
        let mut parts = vec![self.unary()?];
        while self.peek() == Some(&Tok::And) {
            self.pos += 1;
            parts.push(self.unary()?);
        }
        Ok(if parts.len() == 1 {
            parts.remove(0)
        } else {
            GuardExpr::And(parts)
        })
    }

    fn unary(&mut self) -> Result<GuardExpr, LabelError> {
        if !matches!(self.peek(), Some(Tok::Not | Tok::Open)) {
            return self.atom();
        }
        self.depth += 1;
        if self.depth > MAX_GUARD_DEPTH {
            return Err(LabelError {
                limit: true,
                col: self.col(),
                message: format!("guard nested deeper than {MAX_GUARD_DEPTH} levels"),
            });
        }
        let e = if self.next() == Some(Tok::Not) {
            GuardExpr::Not(Box::new(self.unary()?))
        } else {
            let e = self.expr()?;
            if self.next() != Some(Tok::Close) {
                return self.fail("expected `)`");
            }
            e
        };
        self.depth -= 1;
        Ok(e)
    }

    /// `name(arg)` right after a keyword.
    fn call_arg(&mut self, what: &str) -> Result<String, LabelError> {
        if self.next() != Some(Tok::Open) {
            return self.fail(format!("expected `(` after `{what}`"));
        }
        let arg = match self.next() {
            Some(Tok::Word(w)) | Some(Tok::Str(w)) => w,
            _ => return self.fail(format!("expected a name inside `{what}(…)`")),
        };
        if self.next() != Some(Tok::Close) {
            return self.fail(format!("expected `)` to close `{what}(`"));
        }
        Ok(arg)
    }

    fn comparison(&mut self) -> Result<(CmpOp, Value), LabelError> {
        let op = match self.next() {
            Some(Tok::Op(op)) => op,
            Some(Tok::Word(w)) if w == "contains" => CmpOp::Contains,
            _ => {
                self.pos = self.pos.saturating_sub(1);
                return self.fail("expected a comparison (==, !=, <, <=, >, >=, contains)");
            }
        };
        let value = match self.next() {
            Some(Tok::Num(n)) => serde_json::Number::from_f64(n)
                .map(Value::Number)
                .unwrap_or(Value::Null),
            Some(Tok::Str(s)) => match s.strip_prefix('\u{0}') {
                Some(json) => serde_json::from_str(json).map_err(|_| LabelError {
                    limit: false,
                    col: self.col(),
                    message: format!("`{json}` is not a JSON value"),
                })?,
                None => Value::String(s),
            },
            Some(Tok::Word(w)) => word_value(&w),
            _ => {
                self.pos = self.pos.saturating_sub(1);
                return self.fail("expected a value after the comparison");
            }
        };
        Ok((op, value))
    }

    fn atom(&mut self) -> Result<GuardExpr, LabelError> {
        let Some(Tok::Word(w)) = self.next() else {
            self.pos = self.pos.saturating_sub(1);
            return self.fail("expected a condition (flag x, in(State), x == v, reader(r) > n…)");
        };
        match w.as_str() {
            "true" => return Ok(GuardExpr::Const(true)),
            "false" => return Ok(GuardExpr::Const(false)),
            "flag" => {
                return match self.next() {
                    Some(Tok::Word(name)) => Ok(GuardExpr::Flag(name)),
                    _ => self.fail("expected a flag name after `flag`"),
                };
            }
            "in" if self.peek() == Some(&Tok::Open) => {
                return Ok(GuardExpr::In(self.call_arg("in")?));
            }
            "reader" if self.peek() == Some(&Tok::Open) => {
                let name = self.call_arg("reader")?;
                let (op, v) = self.comparison()?;
                return Ok(GuardExpr::Reader(name, op, v));
            }
            _ => {}
        }
        let comparing = matches!(self.peek(), Some(Tok::Op(_)))
            || matches!(self.peek(), Some(Tok::Word(c)) if c == "contains");
        if !comparing {
            return Ok(GuardExpr::Flag(w));
        }
        let (op, v) = self.comparison()?;
        match w.strip_prefix("input.") {
            Some(path) => Ok(GuardExpr::Input(
                format!("/{}", path.replace('.', "/")),
                op,
                v,
            )),
            None => Ok(GuardExpr::Var(w, op, v)),
        }
    }
}

/// Parse a guard expression (the text between `[` and `]`).
pub fn parse(text: &str) -> Result<GuardExpr, LabelError> {
    let toks = lex(text)?;
    if toks.is_empty() {
        return Err(LabelError {
            limit: false,
            col: 0,
            message: "empty guard: expected a condition or `else`".into(),
        });
    }
    let mut p = P {
        toks,
        pos: 0,
        len: text.chars().count(),
        depth: 0,
    };
    let e = p.expr()?;
    if p.pos < p.toks.len() {
        return p.fail("expected `&&`, `||` or the end of the guard");
    }
    Ok(e)
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
        Ok(match self {
            GuardExpr::Const(true) => Guard::True,
            GuardExpr::Const(false) => Guard::Not {
                guard: Box::new(Guard::True),
            },
            GuardExpr::And(v) => Guard::All {
                of: v
                    .iter()
                    .map(|g| g.to_guard(state))
                    .collect::<Result<_, _>>()?,
            },
            GuardExpr::Or(v) => Guard::Any {
                of: v
                    .iter()
                    .map(|g| g.to_guard(state))
                    .collect::<Result<_, _>>()?,
            },
            GuardExpr::Not(g) => Guard::Not {
                guard: Box::new(g.to_guard(state)?),
            },
            GuardExpr::Flag(name) => Guard::Flag { name: name.clone() },
            GuardExpr::In(name) => Guard::In {
                state: state(name)?,
            },
            GuardExpr::Var(name, op, value) => Guard::Var {
                name: name.clone(),
                op: *op,
                value: value.clone(),
            },
            GuardExpr::Reader(name, op, value) => Guard::Reader {
                name: name.clone(),
                op: *op,
                value: value.clone(),
            },
            GuardExpr::Input(pointer, op, value) => {
                let matcher = match value {
                    Value::String(s) if s.contains(['*', '?']) => InputMatcher::Glob(s.clone()),
                    v => InputMatcher::Equals(v.clone()),
                };
                let g = Guard::Input {
                    pointer: pointer.clone(),
                    matcher,
                };
                match op {
                    CmpOp::Eq => g,
                    CmpOp::Ne => Guard::Not { guard: Box::new(g) },
                    _ => {
                        return Err(format!(
                            "input.{} supports only == and !=",
                            pointer.trim_start_matches('/').replace('/', ".")
                        ));
                    }
                }
            }
        })
    }

    /// Reader names the guard reads (for lints and manifests).
    pub fn readers(&self, out: &mut Vec<String>) {
        match self {
            GuardExpr::And(v) | GuardExpr::Or(v) => v.iter().for_each(|g| g.readers(out)),
            GuardExpr::Not(g) => g.readers(out),
            GuardExpr::Reader(n, _, _) => out.push(n.clone()),
            _ => {}
        }
    }
}

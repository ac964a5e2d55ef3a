//! `evaluate_expression` / `evaluate`: a small, safe expression language compiled to typed
//! guards. Nothing is executed: the text becomes data (`Guard`) the engine evaluates.
//!
//! ```text
//! expr    := or
//! or      := and { ("||" | "or") and }
//! and     := unary { ("&&" | "and") unary }
//! unary   := ("!" | "not") unary | compare
//! compare := operand [ ("==" | "!=" | "<" | "<=" | ">" | ">=" | "contains") operand ]
//! operand := literal | path | "len(" path ")" | "(" expr ")"
//! literal := number | "string" | 'string' | true | false | null
//! path    := name { "." (name | digits) }       also written ${name}
//! ```
//!
//! A comparison sets a variable (or `len(variable)`) against a literal; a bare path is "set and
//! not false"; `flags.x` (or a declared flag's bare name) reads a flag.

use std::fmt;

use serde_json::Value;

pub use super::expr_guard::{compile, to_guard};
use super::lex::{Tok, err, lex};
use crate::engine::ir::CmpOp;

/// Longest expression accepted, in characters.
pub const MAX_CHARS: usize = 4096;
/// Deepest nesting of parentheses and negations.
pub const MAX_DEPTH: usize = 64;

#[derive(Debug, Clone, PartialEq)]
pub struct ExprError {
    /// Character offset in the expression text.
    pub offset: usize,
    pub message: String,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    Lit(Value),
    Path(String),
    Len(String),
    Not(Box<Expr>),
    And(Vec<Expr>),
    Or(Vec<Expr>),
    Cmp(CmpOp, Box<Expr>, Box<Expr>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Expr {
    pub kind: Kind,
    /// Character offset where this part starts.
    pub at: usize,
}

struct Parser {
    toks: Vec<(Tok, usize)>,
    pos: usize,
    end: usize,
    depth: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|(t, _)| t)
    }
    fn at(&self) -> usize {
        self.toks.get(self.pos).map(|(_, o)| *o).unwrap_or(self.end)
    }
    fn nest(&mut self) -> Result<(), ExprError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return err(self.at(), format!("nested deeper than {MAX_DEPTH} levels"));
        }
        Ok(())
    }
    fn or(&mut self) -> Result<Expr, ExprError> {
        let at = self.at();
        let mut items = vec![self.and()?];
        while self.peek() == Some(&Tok::Or) {
            self.pos += 1;
            items.push(self.and()?);
        }
        Ok(if items.len() == 1 {
            items.remove(0)
        } else {
            Expr {
                kind: Kind::Or(items),
                at,
            }
        })
    }
    fn and(&mut self) -> Result<Expr, ExprError> {
        let at = self.at();
        let mut items = vec![self.unary()?];
        while self.peek() == Some(&Tok::And) {
            self.pos += 1;
            items.push(self.unary()?);
        }
        Ok(if items.len() == 1 {
            items.remove(0)
        } else {
            Expr {
                kind: Kind::And(items),
                at,
            }
        })
    }
    fn unary(&mut self) -> Result<Expr, ExprError> {
        if self.peek() == Some(&Tok::Not) {
            let at = self.at();
            self.pos += 1;
            self.nest()?;
            let inner = self.unary()?;
            self.depth -= 1;
            return Ok(Expr {
                kind: Kind::Not(Box::new(inner)),
                at,
            });
        }
        let left = self.operand()?;
        if let Some(Tok::Op(op)) = self.peek().cloned() {
            self.pos += 1;
            let right = self.operand()?;
            let at = left.at;
            return Ok(Expr {
                kind: Kind::Cmp(op, Box::new(left), Box::new(right)),
                at,
            });
        }
        Ok(left)
    }
    fn operand(&mut self) -> Result<Expr, ExprError> {
        let at = self.at();
        let Some(tok) = self.peek().cloned() else {
            return err(at, "expression ends early: expected a value or a variable");
        };
        self.pos += 1;
        let kind = match tok {
            Tok::Num(v) | Tok::Lit(v) => Kind::Lit(v),
            Tok::Str(s) => Kind::Lit(Value::String(s)),
            Tok::Path(p) => Kind::Path(p),
            Tok::Minus => match self.peek().cloned() {
                Some(Tok::Num(v)) => {
                    self.pos += 1;
                    Kind::Lit(negate(&v))
                }
                _ => return err(at, "`-` must be followed by a number"),
            },
            Tok::Len => {
                self.expect(Tok::LParen, "`(` after len")?;
                let p = match self.peek().cloned() {
                    Some(Tok::Path(p)) => p,
                    _ => return err(self.at(), "len(…) takes a variable path"),
                };
                self.pos += 1;
                self.expect(Tok::RParen, "`)` to close len(")?;
                Kind::Len(p)
            }
            Tok::LParen => {
                self.nest()?;
                let inner = self.or()?;
                self.depth -= 1;
                self.expect(Tok::RParen, "`)`")?;
                return Ok(inner);
            }
            other => {
                return err(
                    at,
                    format!(
                        "unexpected {}: expected a value or a variable",
                        describe(&other)
                    ),
                );
            }
        };
        Ok(Expr { kind, at })
    }
    fn expect(&mut self, want: Tok, what: &str) -> Result<(), ExprError> {
        if self.peek() == Some(&want) {
            self.pos += 1;
            Ok(())
        } else {
            err(self.at(), format!("expected {what}"))
        }
    }
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

fn describe(t: &Tok) -> String {
    match t {
        Tok::RParen => "`)`".into(),
        Tok::Op(op) => format!("`{}`", op.as_str()),
        Tok::And => "`&&`".into(),
        Tok::Or => "`||`".into(),
        _ => "token".into(),
    }
}

/// Parse expression text.
pub fn parse(src: &str) -> Result<Expr, ExprError> {
    let toks = lex(src)?;
    if toks.is_empty() {
        return err(0, "empty expression");
    }
    let end = src.chars().count();
    let mut p = Parser {
        toks,
        pos: 0,
        end,
        depth: 0,
    };
    let e = p.or()?;
    if p.pos < p.toks.len() {
        let (t, at) = &p.toks[p.pos];
        return err(
            *at,
            format!("unexpected {} after a complete expression", describe(t)),
        );
    }
    Ok(e)
}

/// Canonical text: parsing it again gives the same expression (offsets aside).
impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Parentheses where precedence needs them, and around `&&` inside `||` for clarity.
        let group = |x: &Expr, f: &mut fmt::Formatter<'_>, around_cmp: bool| match x.kind {
            Kind::And(_) | Kind::Or(_) => write!(f, "({x})"),
            Kind::Cmp(..) if around_cmp => write!(f, "({x})"),
            _ => write!(f, "{x}"),
        };
        match &self.kind {
            Kind::Lit(v) => write!(f, "{v}"),
            Kind::Path(p) => f.write_str(p),
            Kind::Len(p) => write!(f, "len({p})"),
            Kind::Not(x) => {
                f.write_str("!")?;
                group(x, f, true)
            }
            Kind::And(items) | Kind::Or(items) => {
                let sep = if matches!(self.kind, Kind::And(_)) {
                    " && "
                } else {
                    " || "
                };
                for (i, x) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(sep)?;
                    }
                    group(x, f, false)?;
                }
                Ok(())
            }
            Kind::Cmp(op, l, r) => {
                group(l, f, true)?;
                write!(f, " {} ", op.as_str())?;
                group(r, f, true)
            }
        }
    }
}

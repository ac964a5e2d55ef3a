//! The parsed expression: connectives and comparisons over the dialect's terms, each part
//! with the character offset it starts at.

use std::fmt;

use crate::engine::ir::CmpOp;

#[derive(Debug, Clone, PartialEq)]
pub struct Expr<T> {
    pub kind: Kind<T>,
    /// Character offset where this part starts.
    pub at: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Kind<T> {
    Term(T),
    Not(Box<Expr<T>>),
    And(Vec<Expr<T>>),
    Or(Vec<Expr<T>>),
    Cmp(CmpOp, Box<Expr<T>>, Box<Expr<T>>),
}

impl<T> Expr<T> {
    pub fn new(kind: Kind<T>, at: usize) -> Expr<T> {
        Expr { kind, at }
    }

    /// The term, when this part is one.
    pub fn term(&self) -> Option<&T> {
        match &self.kind {
            Kind::Term(t) => Some(t),
            _ => None,
        }
    }
}

/// Canonical text: parsing it again gives the same expression (offsets aside).
impl<T: fmt::Display> fmt::Display for Expr<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            Kind::Term(t) => write!(f, "{t}"),
            Kind::Not(x) => {
                f.write_str("!")?;
                grouped(x, f, true)
            }
            Kind::And(items) => joined(items, " && ", f),
            Kind::Or(items) => joined(items, " || ", f),
            Kind::Cmp(op, l, r) => {
                grouped(l, f, true)?;
                write!(f, " {} ", op.as_str())?;
                grouped(r, f, true)
            }
        }
    }
}

fn joined<T: fmt::Display>(
    items: &[Expr<T>],
    sep: &str,
    f: &mut fmt::Formatter<'_>,
) -> fmt::Result {
    for (i, x) in items.iter().enumerate() {
        if i > 0 {
            f.write_str(sep)?;
        }
        grouped(x, f, false)?;
    }
    Ok(())
}

/// Parentheses where precedence needs them, and around `&&` inside `||` for clarity.
fn grouped<T: fmt::Display>(
    x: &Expr<T>,
    f: &mut fmt::Formatter<'_>,
    around_cmp: bool,
) -> fmt::Result {
    match x.kind {
        Kind::And(_) | Kind::Or(_) => write!(f, "({x})"),
        Kind::Cmp(..) if around_cmp => write!(f, "({x})"),
        _ => write!(f, "{x}"),
    }
}

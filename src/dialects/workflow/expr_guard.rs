//! A workflow expression compiled to the typed guard the engine evaluates.

use serde_json::Value;

use super::expr::{Expr, ExprError, Kind, Term, parse};
use crate::engine::ir::{CmpOp, Guard};

/// Parse and compile in one go.
pub fn compile(src: &str, is_flag: &dyn Fn(&str) -> bool) -> Result<Guard, ExprError> {
    to_guard(&parse(src)?, is_flag)
}

/// Compile to a guard. `is_flag` names the workflow's flags, so a bare `is_first_source`
/// reads the flag rather than a variable of that name.
pub fn to_guard(e: &Expr, is_flag: &dyn Fn(&str) -> bool) -> Result<Guard, ExprError> {
    let all = |items: &[Expr]| -> Result<Vec<Guard>, ExprError> {
        items.iter().map(|x| to_guard(x, is_flag)).collect()
    };
    Ok(match &e.kind {
        Kind::And(items) => Guard::All { of: all(items)? },
        Kind::Or(items) => Guard::Any { of: all(items)? },
        Kind::Not(x) => not(to_guard(x, is_flag)?),
        Kind::Term(t) => alone(t, e.at, is_flag)?,
        Kind::Cmp(op, l, r) => comparison(e, *op, l, r, is_flag)?,
    })
}

fn not(g: Guard) -> Guard {
    Guard::Not { guard: Box::new(g) }
}

/// The flag a path reads: `flags.x`, or a declared flag's bare name.
fn flag_name(p: &str, is_flag: &dyn Fn(&str) -> bool) -> Option<String> {
    match p.strip_prefix("flags.") {
        Some(f) => Some(f.to_string()),
        None if is_flag(p) => Some(p.to_string()),
        None => None,
    }
}

/// A term standing alone as a condition: a flag, "set and not false", a non-empty list.
fn alone(t: &Term, at: usize, is_flag: &dyn Fn(&str) -> bool) -> Result<Guard, ExprError> {
    Ok(match t {
        Term::Lit(Value::Bool(true)) => Guard::True,
        Term::Lit(Value::Bool(false)) => not(Guard::True),
        Term::Lit(_) => {
            return Err(ExprError::at(
                at,
                "a literal alone is not a condition: compare it with a variable",
            ));
        }
        Term::Len(p) => Guard::Count {
            name: p.clone(),
            op: CmpOp::Gt,
            value: 0.0,
        },
        Term::Path(p) => match flag_name(p, is_flag) {
            Some(f) => Guard::Flag { name: f },
            None => Guard::All {
                of: [Value::Null, Value::Bool(false)]
                    .map(|value| Guard::Var {
                        name: p.clone(),
                        op: CmpOp::Ne,
                        value,
                    })
                    .into(),
            },
        },
    })
}

fn literal(x: &Expr) -> Option<&Value> {
    match x.term() {
        Some(Term::Lit(v)) => Some(v),
        _ => None,
    }
}

/// The comparison with the literal on the right side (`3 < a` is `a > 3`).
fn flip(op: CmpOp) -> Option<CmpOp> {
    Some(match op {
        CmpOp::Lt => CmpOp::Gt,
        CmpOp::Le => CmpOp::Ge,
        CmpOp::Gt => CmpOp::Lt,
        CmpOp::Ge => CmpOp::Le,
        CmpOp::Contains => return None,
        same => same,
    })
}

/// A variable or `len(…)` compared with a literal, written either way round.
fn comparison(
    e: &Expr,
    op: CmpOp,
    l: &Expr,
    r: &Expr,
    is_flag: &dyn Fn(&str) -> bool,
) -> Result<Guard, ExprError> {
    let subject = |x: &Expr| matches!(x.term(), Some(Term::Path(_) | Term::Len(_)));
    let (subject, op, lit) = match (literal(l), literal(r)) {
        (None, Some(v)) if subject(l) => (l, op, v),
        (Some(v), None) if subject(r) => match flip(op) {
            Some(f) => (r, f, v),
            None => {
                return Err(ExprError::at(
                    r.at,
                    "`contains` needs the variable on its left",
                ));
            }
        },
        (Some(_), Some(_)) => {
            return Err(ExprError::at(
                e.at,
                "comparing two literals: one side must be a variable or len(…)",
            ));
        }
        _ => {
            return Err(ExprError::at(
                r.at,
                "compare a variable or len(…) with a literal; comparing two variables is not supported",
            ));
        }
    };
    match subject.term() {
        Some(Term::Len(p)) => count(p, op, lit, subject.at, r.at.max(l.at)),
        Some(Term::Path(p)) => Ok(match flag_name(p, is_flag) {
            Some(f) => flag_compared(f, op, lit, subject.at)?,
            None => Guard::Var {
                name: p.clone(),
                op,
                value: lit.clone(),
            },
        }),
        _ => Err(ExprError::at(e.at, "unsupported comparison")),
    }
}

/// `len(p) OP n`.
fn count(p: &str, op: CmpOp, lit: &Value, at: usize, lit_at: usize) -> Result<Guard, ExprError> {
    let Some(n) = lit.as_f64() else {
        return Err(ExprError::at(lit_at, "len(…) compares with a number"));
    };
    if op == CmpOp::Contains {
        return Err(ExprError::at(at, "len(…) cannot use `contains`"));
    }
    Ok(Guard::Count {
        name: p.to_string(),
        op,
        value: n,
    })
}

/// A flag compared with `true` or `false`.
fn flag_compared(f: String, op: CmpOp, lit: &Value, at: usize) -> Result<Guard, ExprError> {
    let (Some(b), CmpOp::Eq | CmpOp::Ne) = (lit.as_bool(), op) else {
        return Err(ExprError::at(
            at,
            format!("flag `{f}` compares only with == or != true/false"),
        ));
    };
    let g = Guard::Flag { name: f };
    Ok(if b == (op == CmpOp::Eq) { g } else { not(g) })
}

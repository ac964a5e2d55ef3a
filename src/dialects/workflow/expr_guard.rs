//! An expression compiled to the typed guard the engine evaluates.

use serde_json::Value;

use super::expr::{Expr, ExprError, Kind, parse};
use super::lex::err;
use crate::engine::ir::{CmpOp, Guard};

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

/// Compile to a guard. `is_flag` names the workflow's flags, so a bare `is_first_source`
/// reads the flag rather than a variable of that name.
pub fn to_guard(e: &Expr, is_flag: &dyn Fn(&str) -> bool) -> Result<Guard, ExprError> {
    let flag_name = |p: &str| -> Option<String> {
        match p.strip_prefix("flags.") {
            Some(f) => Some(f.to_string()),
            None if is_flag(p) => Some(p.to_string()),
            None => None,
        }
    };
    Ok(match &e.kind {
        Kind::And(items) => Guard::All {
            of: items
                .iter()
                .map(|x| to_guard(x, is_flag))
                .collect::<Result<_, _>>()?,
        },
        Kind::Or(items) => Guard::Any {
            of: items
                .iter()
                .map(|x| to_guard(x, is_flag))
                .collect::<Result<_, _>>()?,
        },
        Kind::Not(x) => Guard::Not {
            guard: Box::new(to_guard(x, is_flag)?),
        },
        Kind::Lit(Value::Bool(true)) => Guard::True,
        Kind::Lit(Value::Bool(false)) => Guard::Not {
            guard: Box::new(Guard::True),
        },
        Kind::Lit(_) => {
            return err(
                e.at,
                "a literal alone is not a condition: compare it with a variable",
            );
        }
        Kind::Len(p) => Guard::Count {
            name: p.clone(),
            op: CmpOp::Gt,
            value: 0.0,
        },
        Kind::Path(p) => match flag_name(p) {
            Some(f) => Guard::Flag { name: f },
            None => Guard::All {
                of: vec![
                    Guard::Var {
                        name: p.clone(),
                        op: CmpOp::Ne,
                        value: Value::Null,
                    },
                    Guard::Var {
                        name: p.clone(),
                        op: CmpOp::Ne,
                        value: Value::Bool(false),
                    },
                ],
            },
        },
        Kind::Cmp(op, l, r) => {
            let (subject, op, lit) = match (&l.kind, &r.kind) {
                (Kind::Path(_) | Kind::Len(_), Kind::Lit(v)) => (l.as_ref(), *op, v),
                (Kind::Lit(v), Kind::Path(_) | Kind::Len(_)) => match flip(*op) {
                    Some(f) => (r.as_ref(), f, v),
                    None => return err(r.at, "`contains` needs the variable on its left"),
                },
                (Kind::Lit(_), Kind::Lit(_)) => {
                    return err(
                        e.at,
                        "comparing two literals: one side must be a variable or len(…)",
                    );
                }
                _ => {
                    return err(
                        r.at,
                        "compare a variable or len(…) with a literal; comparing two variables is not supported",
                    );
                }
            };
            match &subject.kind {
                Kind::Len(p) => {
                    let Some(n) = lit.as_f64() else {
                        return err(r.at.max(l.at), "len(…) compares with a number");
                    };
                    if op == CmpOp::Contains {
                        return err(subject.at, "len(…) cannot use `contains`");
                    }
                    Guard::Count {
                        name: p.clone(),
                        op,
                        value: n,
                    }
                }
                Kind::Path(p) => match flag_name(p) {
                    Some(f) => {
                        let (Some(b), CmpOp::Eq | CmpOp::Ne) = (lit.as_bool(), op) else {
                            return err(
                                subject.at,
                                format!("flag `{f}` compares only with == or != true/false"),
                            );
                        };
                        let g = Guard::Flag { name: f };
                        if b == (op == CmpOp::Eq) {
                            g
                        } else {
                            Guard::Not { guard: Box::new(g) }
                        }
                    }
                    None => Guard::Var {
                        name: p.clone(),
                        op,
                        value: lit.clone(),
                    },
                },
                _ => return err(e.at, "unsupported comparison"),
            }
        }
    })
}

/// Parse and compile in one go.
pub fn compile(src: &str, is_flag: &dyn Fn(&str) -> bool) -> Result<Guard, ExprError> {
    to_guard(&parse(src)?, is_flag)
}

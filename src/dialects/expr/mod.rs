//! The expression language of guards and preconditions, shared by the dialects: Mermaid
//! labels (`[flag a && score >= 8]`), manifest `when`s and workflow `evaluate_expression`s.
//!
//! ```text
//! expr    := and { ("||" | "or") and }
//! and     := unary { ("&&" | "and") unary }
//! unary   := ("!" | "not") unary | compare
//! compare := operand [ OP operand ]
//! operand := "(" expr ")" | term
//! OP      := == | != | < | <= | > | >= | contains      (also ≥ ≤ ≠)
//! ```
//!
//! The structure, the tokens, the limits and the errors are the language's; a *term* is the
//! dialect's own ([`Terms`]): a Mermaid guard reads `flag x`, `in(State)`, `reader(r)`,
//! `input.path` and bare words, a workflow expression variables, `len(x)` and literals. Each
//! dialect then turns the tree into the engine's [`Guard`](crate::engine::ir::Guard). Nothing
//! is executed: the text becomes data.

pub mod lex;
mod parse;
mod tree;

#[cfg(test)]
mod tests;

pub use parse::{Cursor, Terms, parse};
pub use tree::{Expr, Kind};

/// Longest expression accepted, in characters.
pub const MAX_CHARS: usize = 4096;
/// Deepest nesting of parentheses and negations: the parser and every pass over the tree
/// recurse once per level.
pub const MAX_DEPTH: usize = 64;

/// What is wrong with an expression, at a character offset into its text.
#[derive(Debug, Clone, PartialEq)]
pub struct ExprError {
    pub offset: usize,
    pub message: String,
    /// A size limit was hit (the text is refused whatever it says).
    pub limit: bool,
}

impl ExprError {
    pub fn at(offset: usize, message: impl Into<String>) -> ExprError {
        ExprError {
            offset,
            message: message.into(),
            limit: false,
        }
    }
}

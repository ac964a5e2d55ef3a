//! The language's structure (connectives, negation, parentheses, comparisons), with the
//! dialect's terms read through [`Terms`].

use super::lex::{Tok, lex};
use super::tree::{Expr, Kind};
use super::{ExprError, MAX_DEPTH};

/// A dialect's terms: what may stand on either side of a comparison, or alone.
pub trait Terms {
    type Term;
    /// What errors call the text: "guard", "expression".
    const WHAT: &'static str;

    /// Read one term at the cursor, which stands on a token that starts an operand (not a
    /// parenthesis, connective or comparison).
    fn term(&self, c: &mut Cursor) -> Result<Self::Term, ExprError>;

    /// Why `term` cannot be a condition on its own (`reader(r)` needs a comparison), if so.
    fn alone(&self, _term: &Self::Term) -> Option<String> {
        None
    }
}

/// The tokens, and the one being read.
pub struct Cursor {
    toks: Vec<(Tok, usize)>,
    pos: usize,
    /// The text's length in characters: where "at the end" errors point.
    end: usize,
}

impl Cursor {
    pub fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|(t, _)| t)
    }

    /// Offset of the current token (the end of the text after the last one).
    pub fn at(&self) -> usize {
        self.toks.get(self.pos).map_or(self.end, |(_, o)| *o)
    }

    pub fn bump(&mut self) -> Option<Tok> {
        let t = self.toks.get(self.pos).map(|(t, _)| t.clone());
        self.pos += 1;
        t
    }

    /// Take `want`, or fail with "expected {what}" at the current token.
    pub fn expect(&mut self, want: &Tok, what: &str) -> Result<(), ExprError> {
        if self.peek() == Some(want) {
            self.pos += 1;
            Ok(())
        } else {
            Err(ExprError::at(self.at(), format!("expected {what}")))
        }
    }
}

/// Parse expression text with the dialect's terms.
pub fn parse<T: Terms>(terms: &T, src: &str) -> Parsed<T> {
    let toks = lex(src)?;
    if toks.is_empty() {
        return Err(ExprError::at(0, format!("empty {}", T::WHAT)));
    }
    let cursor = Cursor {
        toks,
        pos: 0,
        end: src.chars().count(),
    };
    let mut p = Parser {
        terms,
        c: cursor,
        depth: 0,
    };
    let e = p.or()?;
    match p.c.peek().cloned() {
        None => Ok(e),
        Some(t) => Err(p.trailing(&t)),
    }
}

type Parsed<T> = Result<Expr<<T as Terms>::Term>, ExprError>;
/// `Kind::And` or `Kind::Or`.
type Connective<T> = fn(Vec<Expr<<T as Terms>::Term>>) -> Kind<<T as Terms>::Term>;

struct Parser<'t, T: Terms> {
    terms: &'t T,
    c: Cursor,
    depth: usize,
}

impl<T: Terms> Parser<'_, T> {
    fn or(&mut self) -> Parsed<T> {
        self.chain(&Tok::Or, Self::and, Kind::Or)
    }

    fn and(&mut self) -> Parsed<T> {
        self.chain(&Tok::And, Self::unary, Kind::And)
    }

    /// `item { sep item }`, flat however long (one node, not a deep tree).
    fn chain(
        &mut self,
        sep: &Tok,
        item: fn(&mut Self) -> Parsed<T>,
        node: Connective<T>,
    ) -> Parsed<T> {
        let at = self.c.at();
        let mut items = vec![item(self)?];
        while self.c.peek() == Some(sep) {
            self.c.bump();
            items.push(item(self)?);
        }
        Ok(if items.len() == 1 {
            items.remove(0)
        } else {
            Expr::new(node(items), at)
        })
    }

    fn unary(&mut self) -> Parsed<T> {
        if self.c.peek() != Some(&Tok::Not) {
            return self.compare();
        }
        let at = self.c.at();
        self.nest()?;
        self.c.bump();
        let inner = self.unary()?;
        self.depth -= 1;
        Ok(Expr::new(Kind::Not(Box::new(inner)), at))
    }

    fn compare(&mut self) -> Parsed<T> {
        let left = self.operand(false)?;
        let Some(Tok::Op(op)) = self.c.peek().cloned() else {
            if let Some(why) = left.term().and_then(|t| self.terms.alone(t)) {
                return Err(ExprError::at(self.c.at(), why));
            }
            return Ok(left);
        };
        self.c.bump();
        let right = self.operand(true)?;
        let at = left.at;
        Ok(Expr::new(
            Kind::Cmp(op, Box::new(left), Box::new(right)),
            at,
        ))
    }

    fn operand(&mut self, after_op: bool) -> Parsed<T> {
        let at = self.c.at();
        match self.c.peek() {
            None => {
                let want = if after_op {
                    "a value after the comparison"
                } else {
                    "a condition"
                };
                Err(ExprError::at(
                    at,
                    format!("{} ends early: expected {want}", T::WHAT),
                ))
            }
            Some(Tok::Open) => self.group(),
            Some(t @ (Tok::Close | Tok::And | Tok::Or | Tok::Not | Tok::Op(_))) => {
                Err(ExprError::at(
                    at,
                    format!("unexpected {}: expected a value or a name", t.describe()),
                ))
            }
            Some(_) => Ok(Expr::new(Kind::Term(self.terms.term(&mut self.c)?), at)),
        }
    }

    fn group(&mut self) -> Parsed<T> {
        self.nest()?;
        self.c.bump();
        let inner = self.or()?;
        self.c.expect(&Tok::Close, "`)`")?;
        self.depth -= 1;
        Ok(inner)
    }

    /// What is wrong with a token after a complete expression: the token itself when it is
    /// no term of the dialect (`#`), else that it comes after the end.
    fn trailing(&mut self, t: &Tok) -> ExprError {
        let at = self.c.at();
        let starts_term = !matches!(
            t,
            Tok::Open | Tok::Close | Tok::And | Tok::Or | Tok::Not | Tok::Op(_)
        );
        if starts_term && let Err(e) = self.terms.term(&mut self.c) {
            return e;
        }
        ExprError::at(
            at,
            format!("unexpected {} after a complete {}", t.describe(), T::WHAT),
        )
    }

    /// One level deeper, refused past [`MAX_DEPTH`] at the token that goes too deep.
    fn nest(&mut self) -> Result<(), ExprError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(ExprError {
                offset: self.c.at(),
                message: format!("{} nested deeper than {MAX_DEPTH} levels", T::WHAT),
                limit: true,
            });
        }
        Ok(())
    }
}

//! Statements → syntax tree: a stack of open composites, one statement per line, note and
//! `accDescr { }` blocks, and `file:line:col` errors that say what was expected.

use super::ast::{Body, Diagram, Ident, Pos, Stereo, Stmt, StmtKind, Text};
use super::lexer::{self, Line};
use super::stmt::{
    NoteStart, StateLine, clip, find_outside_quotes, parse_edge, parse_note, parse_plain,
    parse_state,
};
use crate::dialects::locate::line_col_of_offset;

#[derive(Debug, Clone, PartialEq)]
pub struct ParseError {
    pub pos: Pos,
    pub message: String,
}

pub(super) fn fail<T>(pos: Pos, message: impl Into<String>) -> Result<T, ParseError> {
    Err(ParseError {
        pos,
        message: message.into(),
    })
}

/// An open `state X {`.
pub(super) struct Frame {
    pub(super) stmt_pos: Pos,
    pub(super) id: Ident,
    pub(super) label: Option<Text>,
    pub(super) stereo: Option<(Stereo, Pos)>,
    pub(super) regions: Vec<Vec<Stmt>>,
}

/// Composite states (`state X {`) nested deeper than this are refused: later passes walk the
/// tree recursively, and no diagram a person draws comes near it.
pub const MAX_NESTING: usize = 32;

/// Statement lines per diagram (comments and blank lines aside). With `MAX_STATES` this keeps
/// a diagram, which the hook reads on every call, as small as a workflow's node limit.
pub const MAX_LINES: usize = 20_000;

/// Bytes per diagram: drawn diagrams are a few kilobytes; this refuses a hostile one before
/// any work (16 MB took tens of seconds to parse).
pub const MAX_BYTES: usize = 1 << 20;

/// Lines that only style or describe the drawing.
const IGNORED: &[&str] = &[
    "direction",
    "classdef",
    "class",
    "style",
    "linkstyle",
    "click",
    "acctitle",
    "acctitle:",
    "accdescr",
    "accdescr:",
    "hide",
    "scale",
];

pub fn parse(text: &str) -> Result<Diagram, ParseError> {
    if text.len() > MAX_BYTES {
        let (line, col) = line_col_of_offset(text, MAX_BYTES);
        return fail(
            Pos { line, col },
            format!(
                "diagram larger than {MAX_BYTES} bytes: a diagram may have at most {MAX_BYTES} bytes ({} MiB)",
                MAX_BYTES >> 20
            ),
        );
    }
    let lexed = lexer::lex(text).map_err(|e| ParseError {
        pos: e.pos,
        message: e.message,
    })?;
    if let Some(line) = lexed.lines.get(MAX_LINES) {
        return fail(
            line.pos,
            format!(
                "more than {MAX_LINES} statement lines: a diagram may have at most {MAX_LINES}"
            ),
        );
    }
    let mut lines = lexed.lines.into_iter();
    let header = header(lines.next())?;
    let mut tree = Tree::default();
    for line in lines {
        tree.line(&line)?;
    }
    let root = tree.finish()?;
    // Notes alone draw nothing to run: the chart would be a root with no way out.
    let stateless = root
        .iter()
        .flatten()
        .all(|s| matches!(s.kind, StmtKind::Note { .. }));
    if stateless {
        return fail(
            header.pos,
            format!(
                "the diagram has no states: expected a state or a transition (`[*] --> A`) after `{}`",
                clip(header.text)
            ),
        );
    }
    Ok(Diagram {
        title: lexed.title,
        body: Body { regions: root },
    })
}

/// The first statement: `stateDiagram-v2` (or `stateDiagram`).
fn header(first: Option<Line<'_>>) -> Result<Line<'_>, ParseError> {
    let Some(header) = first else {
        return fail(
            Pos { line: 1, col: 1 },
            "empty diagram: expected `stateDiagram-v2`",
        );
    };
    let head = header.text.to_ascii_lowercase();
    if head != "statediagram-v2" && head != "statediagram" {
        return fail(
            header.pos,
            format!(
                "expected `stateDiagram-v2` (or `stateDiagram`) as the first statement, found `{}`",
                clip(header.text)
            ),
        );
    }
    Ok(header)
}

/// The statements read so far: the root's regions, the composites still open, and a note or
/// `accDescr` block being read.
#[derive(Default)]
struct Tree {
    root: Vec<Vec<Stmt>>,
    stack: Vec<Frame>,
    note: Option<(Pos, Option<Ident>, Vec<String>)>,
    acc_block: Option<Pos>,
}

impl Tree {
    fn push(&mut self, stmt: Stmt) {
        current(&mut self.root, &mut self.stack).push(stmt);
    }

    fn line(&mut self, line: &Line<'_>) -> Result<(), ParseError> {
        if let Some((pos, target, mut rows)) = self.note.take() {
            if line.text.eq_ignore_ascii_case("end note") {
                let text = rows.join("\n");
                self.push(Stmt {
                    pos,
                    kind: StmtKind::Note { target, text },
                });
            } else {
                rows.push(line.text.to_string());
                self.note = Some((pos, target, rows));
            }
            return Ok(());
        }
        if self.acc_block.is_some() {
            if line.text.contains('}') {
                self.acc_block = None;
            }
            return Ok(());
        }
        self.statement(line)
    }

    fn statement(&mut self, line: &Line<'_>) -> Result<(), ParseError> {
        let t = line.text;
        let first = t
            .split_whitespace()
            .next()
            .unwrap_or("")
            .to_ascii_lowercase();
        if t == "}" {
            self.close(line.pos)?;
        } else if t == "--" {
            let Some(f) = self.stack.last_mut() else {
                return fail(
                    line.pos,
                    "`--` (a concurrency divider) is only allowed inside a composite `state X { … }`",
                );
            };
            f.regions.push(Vec::new());
        } else if first.starts_with("accdescr") && t.trim_end().ends_with('{') {
            self.acc_block = Some(line.pos);
        } else if IGNORED.contains(&first.as_str()) || first.starts_with("acctitle") {
            // Styling and descriptions: nothing to run.
        } else if first == "note" {
            match parse_note(line)? {
                NoteStart::Done(stmt) => self.push(stmt),
                NoteStart::Block(target) => self.note = Some((line.pos, Some(target), Vec::new())),
            }
        } else if first == "state" && t.len() > 5 && t[5..].starts_with(char::is_whitespace) {
            self.state(line)?;
        } else if let Some(i) = find_outside_quotes(t, "-->") {
            self.push(parse_edge(line, i)?);
        } else {
            self.push(parse_plain(line)?);
        }
        Ok(())
    }

    /// `state …`: a statement, or a composite opened.
    fn state(&mut self, line: &Line<'_>) -> Result<(), ParseError> {
        match parse_state(line)? {
            StateLine::Stmt(s) => self.push(s),
            StateLine::Open(f) if self.stack.len() >= MAX_NESTING => {
                return fail(
                    f.stmt_pos,
                    format!(
                        "`state {} {{` nests composite states deeper than {MAX_NESTING} levels",
                        clip(&f.id.name)
                    ),
                );
            }
            StateLine::Open(f) => self.stack.push(f),
        }
        Ok(())
    }

    /// `}`: the innermost open composite becomes a statement of its parent.
    fn close(&mut self, pos: Pos) -> Result<(), ParseError> {
        let Some(f) = self.stack.pop() else {
            return fail(pos, "unexpected `}`: no composite state is open");
        };
        self.push(Stmt {
            pos: f.stmt_pos,
            kind: StmtKind::State {
                id: f.id,
                label: f.label,
                stereo: f.stereo,
                body: Some(Body { regions: f.regions }),
            },
        });
        Ok(())
    }

    /// The root's regions, once every block is closed.
    fn finish(mut self) -> Result<Vec<Vec<Stmt>>, ParseError> {
        if let Some((pos, _, _)) = self.note {
            return fail(pos, "note block is never closed: expected `end note`");
        }
        if let Some(pos) = self.acc_block {
            return fail(pos, "`accDescr {` is never closed: expected `}`");
        }
        if let Some(f) = self.stack.pop() {
            return fail(
                f.stmt_pos,
                format!("`state {} {{` is never closed: expected `}}`", f.id.name),
            );
        }
        if self.root.is_empty() {
            self.root.push(Vec::new());
        }
        Ok(self.root)
    }
}

fn current<'a>(root: &'a mut Vec<Vec<Stmt>>, stack: &'a mut [Frame]) -> &'a mut Vec<Stmt> {
    let regions = match stack.last_mut() {
        Some(f) => &mut f.regions,
        None => root,
    };
    if regions.is_empty() {
        regions.push(Vec::new());
    }
    let last = regions.len() - 1;
    &mut regions[last]
}

//! Statements → syntax tree: a stack of open composites, one statement per line, note and
//! `accDescr { }` blocks, and `file:line:col` errors that say what was expected.

use super::ast::{Body, Diagram, Ident, Pos, Stereo, Stmt, StmtKind, Text};
use super::lexer;
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
    let Some(header) = lines.next() else {
        return fail(
            Pos { line: 1, col: 1 },
            "empty diagram: expected `stateDiagram-v2`",
        );
    };
    let (header_pos, header_text) = (header.pos, header.text);
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
    let mut root: Vec<Vec<Stmt>> = vec![Vec::new()];
    let mut stack: Vec<Frame> = Vec::new();
    let mut note: Option<(Pos, Option<Ident>, Vec<String>)> = None;
    let mut acc_block: Option<Pos> = None;
    for line in lines {
        if let Some((pos, target, mut rows)) = note.take() {
            if line.text.eq_ignore_ascii_case("end note") {
                current(&mut root, &mut stack).push(Stmt {
                    pos,
                    kind: StmtKind::Note {
                        target,
                        text: rows.join("\n"),
                    },
                });
            } else {
                rows.push(line.text.to_string());
                note = Some((pos, target, rows));
            }
            continue;
        }
        if acc_block.is_some() {
            if line.text.contains('}') {
                acc_block = None;
            }
            continue;
        }
        let t = line.text;
        let first = t
            .split_whitespace()
            .next()
            .unwrap_or("")
            .to_ascii_lowercase();
        if t == "}" {
            let Some(f) = stack.pop() else {
                return fail(line.pos, "unexpected `}`: no composite state is open");
            };
            let stmt = Stmt {
                pos: f.stmt_pos,
                kind: StmtKind::State {
                    id: f.id,
                    label: f.label,
                    stereo: f.stereo,
                    body: Some(Body { regions: f.regions }),
                },
            };
            current(&mut root, &mut stack).push(stmt);
        } else if t == "--" {
            match stack.last_mut() {
                Some(f) => f.regions.push(Vec::new()),
                None => {
                    return fail(
                        line.pos,
                        "`--` (a concurrency divider) is only allowed inside a composite `state X { … }`",
                    );
                }
            }
        } else if first.starts_with("accdescr") && t.trim_end().ends_with('{') {
            acc_block = Some(line.pos);
        } else if IGNORED.contains(&first.as_str()) || first.starts_with("acctitle") {
            continue;
        } else if first == "note" {
            match parse_note(&line)? {
                NoteStart::Done(stmt) => current(&mut root, &mut stack).push(stmt),
                NoteStart::Block(target) => note = Some((line.pos, Some(target), Vec::new())),
            }
        } else if first == "state" && t.len() > 5 && t[5..].starts_with(char::is_whitespace) {
            match parse_state(&line)? {
                StateLine::Stmt(s) => current(&mut root, &mut stack).push(s),
                StateLine::Open(f) if stack.len() >= MAX_NESTING => {
                    return fail(
                        f.stmt_pos,
                        format!(
                            "`state {} {{` nests composite states deeper than {MAX_NESTING} levels",
                            clip(&f.id.name)
                        ),
                    );
                }
                StateLine::Open(f) => stack.push(f),
            }
        } else if let Some(i) = find_outside_quotes(t, "-->") {
            let s = parse_edge(&line, i)?;
            current(&mut root, &mut stack).push(s);
        } else {
            let s = parse_plain(&line)?;
            current(&mut root, &mut stack).push(s);
        }
    }
    if let Some((pos, _, _)) = note {
        return fail(pos, "note block is never closed: expected `end note`");
    }
    if let Some(pos) = acc_block {
        return fail(pos, "`accDescr {` is never closed: expected `}`");
    }
    if let Some(f) = stack.pop() {
        return fail(
            f.stmt_pos,
            format!("`state {} {{` is never closed: expected `}}`", f.id.name),
        );
    }
    // Notes alone draw nothing to run: the chart would be a root with no way out.
    let stateless = root
        .iter()
        .flatten()
        .all(|s| matches!(s.kind, StmtKind::Note { .. }));
    if stateless {
        return fail(
            header_pos,
            format!(
                "the diagram has no states: expected a state or a transition (`[*] --> A`) after `{}`",
                clip(header_text)
            ),
        );
    }
    Ok(Diagram {
        title: lexed.title,
        body: Body { regions: root },
    })
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

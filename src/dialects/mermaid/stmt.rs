//! One statement line → a syntax-tree statement: transitions, `state …` declarations,
//! descriptions, notes; ids are checked against Mermaid's id token.

use super::ast::{End, Ident, Pos, Stereo, Stmt, StmtKind, Text};
use super::lexer::Line;
use super::parser::{Frame, ParseError, fail};

pub(super) fn clip(s: &str) -> String {
    let c: String = s.chars().take(60).collect();
    if c.len() < s.len() {
        format!("{c}…")
    } else {
        c
    }
}

/// Position of a character offset (in chars) within a line.
fn at(line: &Line, char_offset: usize) -> Pos {
    Pos {
        line: line.pos.line,
        col: line.pos.col + char_offset as u32,
    }
}

fn char_off(s: &str, byte: usize) -> usize {
    s[..byte].chars().count()
}

pub(super) fn find_outside_quotes(s: &str, needle: &str) -> Option<usize> {
    let mut quoted = false;
    for (i, c) in s.char_indices() {
        if c == '"' {
            quoted = !quoted;
        } else if !quoted && s[i..].starts_with(needle) {
            return Some(i);
        }
    }
    None
}

/// Check a state id: Mermaid's ID token is `[^:\n\s\-\{]+`.
fn ident(line: &Line, raw: &str, byte: usize) -> Result<Ident, ParseError> {
    // `A:::cls` styles the state; the class is not part of the id.
    let name = raw.split(":::").next().unwrap_or(raw);
    let pos = at(line, char_off(line.text, byte));
    if name.is_empty() {
        return fail(pos, "expected a state id");
    }
    if let Some(bad) = name
        .chars()
        .find(|c| c.is_whitespace() || "-:{}\"[]<>;".contains(*c))
    {
        return fail(
            pos,
            format!(
                "`{name}` is not a valid state id (ids cannot contain `{bad}`): write `state \"{}\" as {}`",
                name.replace('"', ""),
                id_for(name)
            ),
        );
    }
    Ok(Ident {
        name: name.to_string(),
        pos,
    })
}

/// An id for a name that is not one: its letters and digits, other runs as one `_`
/// (`"B"` → `B`, `my-state` → `my_state`), `state` when nothing is left.
fn id_for(name: &str) -> String {
    let mut id = String::new();
    for c in name.chars() {
        if c.is_alphanumeric() || c == '_' {
            id.push(c);
        } else if !id.is_empty() && !id.ends_with('_') {
            id.push('_');
        }
    }
    let id = id.trim_end_matches('_');
    if id.is_empty() {
        "state".to_string()
    } else {
        id.to_string()
    }
}

fn end(line: &Line, raw: &str, byte: usize) -> Result<End, ParseError> {
    if raw == "[*]" {
        Ok(End::Star(at(line, char_off(line.text, byte))))
    } else {
        Ok(End::State(ident(line, raw, byte)?))
    }
}

/// Byte offset of `sub` (a subslice of `line.text`) within it.
fn offset_of(line: &Line, sub: &str) -> usize {
    (sub.as_ptr() as usize).saturating_sub(line.text.as_ptr() as usize)
}

pub(super) fn parse_edge(line: &Line, arrow: usize) -> Result<Stmt, ParseError> {
    let t = line.text;
    let left = t[..arrow].trim();
    let right = t[arrow + 3..].trim_start();
    if left.is_empty() {
        return fail(line.pos, "expected a state before `-->`");
    }
    let from = end(line, left, offset_of(line, left))?;
    let target_len = right
        .find(|c: char| c.is_whitespace() || c == ':')
        .map(|i| {
            // Keep `:::class` on the id; a single `:` starts the label.
            if right[i..].starts_with(":::") {
                right[i + 3..]
                    .find(|c: char| c.is_whitespace() || c == ':')
                    .map(|j| i + 3 + j)
                    .unwrap_or(right.len())
            } else {
                i
            }
        })
        .unwrap_or(right.len());
    let target = &right[..target_len];
    if target.is_empty() {
        return fail(
            at(line, char_off(t, arrow + 3)),
            "expected a state or `[*]` after `-->`",
        );
    }
    let to = end(line, target, offset_of(line, target))?;
    let rest = right[target_len..].trim_start();
    let label = if rest.is_empty() {
        None
    } else if let Some(l) = rest.strip_prefix(':') {
        let l2 = l.trim();
        (!l2.is_empty()).then(|| Text {
            text: l2.to_string(),
            pos: at(line, char_off(t, offset_of(line, l2))),
        })
    } else {
        return fail(
            at(line, char_off(t, offset_of(line, rest))),
            format!("expected `: label` or the end of the line after `{target}`"),
        );
    };
    if matches!((&from, &to), (End::Star(_), End::Star(_))) {
        return fail(line.pos, "`[*] --> [*]` connects nothing: name a state");
    }
    Ok(Stmt {
        pos: line.pos,
        kind: StmtKind::Edge { from, to, label },
    })
}

/// `id`, `id : text`, `id:::cls`.
pub(super) fn parse_plain(line: &Line) -> Result<Stmt, ParseError> {
    let t = line.text;
    let (id_part, desc) = match split_description(t) {
        Some((a, b)) => (a, Some(b)),
        None => (t, None),
    };
    if id_part.contains(char::is_whitespace) {
        return fail(
            line.pos,
            format!(
                "unrecognised statement `{}`: expected a state, `a --> b`, `state …`, `note …` or `}}`",
                clip(t)
            ),
        );
    }
    let id = ident(line, id_part, 0)?;
    Ok(Stmt {
        pos: line.pos,
        kind: match desc {
            Some(d) => StmtKind::Describe {
                id,
                text: Text {
                    text: d.trim().to_string(),
                    pos: at(line, char_off(t, offset_of(line, d))),
                },
            },
            None => StmtKind::State {
                id,
                label: None,
                stereo: None,
                body: None,
            },
        },
    })
}

/// `id : text` → (`id`, `text`), ignoring `:::class`.
fn split_description(t: &str) -> Option<(&str, &str)> {
    let mut i = 0;
    while let Some(j) = t[i..].find(':') {
        let k = i + j;
        if t[k..].starts_with(":::") {
            i = k + 3;
            continue;
        }
        return Some((t[..k].trim(), &t[k + 1..]));
    }
    None
}

/// Where the id after `state` ends: whitespace, `{`, `<<`, `[[` or a `:` (not `:::`).
fn id_end(rest: &str) -> usize {
    let mut skip_to = 0;
    for (i, c) in rest.char_indices() {
        if i < skip_to {
            continue;
        }
        if c.is_whitespace()
            || c == '{'
            || rest[i..].starts_with("<<")
            || rest[i..].starts_with("[[")
        {
            return i;
        }
        if c == ':' {
            if rest[i..].starts_with(":::") {
                skip_to = i + 3;
                continue;
            }
            return i;
        }
    }
    rest.len()
}

pub(super) enum StateLine {
    Stmt(Stmt),
    Open(Frame),
}

pub(super) fn parse_state(line: &Line) -> Result<StateLine, ParseError> {
    let t = line.text;
    let (label, rest) = quoted_label(line, t[5..].trim_start())?;
    let id_len = id_end(rest);
    let id_text = &rest[..id_len];
    if id_text.is_empty() {
        return fail(
            at(line, char_off(t, offset_of(line, rest))),
            "expected a state id after `state`",
        );
    }
    let id = ident(line, id_text, offset_of(line, id_text))?;
    let (stereo, tail) = stereotype(line, rest[id_len..].trim_start())?;
    if let Some(d) = tail.strip_prefix(':') {
        let text = d.trim();
        return Ok(StateLine::Stmt(Stmt {
            pos: line.pos,
            kind: StmtKind::Describe {
                id,
                text: Text {
                    text: text.to_string(),
                    pos: at(line, char_off(t, offset_of(line, d))),
                },
            },
        }));
    }
    if tail == "{" {
        return Ok(StateLine::Open(Frame {
            stmt_pos: line.pos,
            id,
            label,
            stereo,
            regions: vec![Vec::new()],
        }));
    }
    if !tail.is_empty() {
        return fail(
            at(line, char_off(t, offset_of(line, tail))),
            format!(
                "unexpected `{}`: expected `<<choice>>`, `<<fork>>`, `<<join>>`, `{{` or the end of the line",
                clip(tail)
            ),
        );
    }
    Ok(StateLine::Stmt(Stmt {
        pos: line.pos,
        kind: StmtKind::State {
            id,
            label,
            stereo,
            body: None,
        },
    }))
}

/// `"Label" as ` before the id, if written; the rest of the line after it.
fn quoted_label<'t>(line: &Line, rest: &'t str) -> Result<(Option<Text>, &'t str), ParseError> {
    let t = line.text;
    let Some(q) = rest.strip_prefix('"') else {
        return Ok((None, rest));
    };
    let Some(close) = q.find('"') else {
        return fail(
            at(line, char_off(t, offset_of(line, rest))),
            "unterminated string: expected a closing `\"`",
        );
    };
    let label = Text {
        text: q[..close].to_string(),
        pos: at(line, char_off(t, offset_of(line, q))),
    };
    let after = q[close + 1..].trim_start();
    let Some(after_as) = after
        .strip_prefix("as")
        .filter(|a| a.starts_with(char::is_whitespace))
    else {
        return fail(
            at(line, char_off(t, offset_of(line, after))),
            "expected `as <id>` after the quoted label",
        );
    };
    Ok((Some(label), after_as.trim_start()))
}

/// A stereotype and where it is written.
type Stereotype = (Stereo, Pos);

/// `<<choice>>` or `[[fork]]` after the id, if written; the rest of the line after it.
fn stereotype<'t>(
    line: &Line,
    mut tail: &'t str,
) -> Result<(Option<Stereotype>, &'t str), ParseError> {
    let t = line.text;
    let mut stereo = None;
    for (open, close) in [("<<", ">>"), ("[[", "]]")] {
        if let Some(s) = tail.strip_prefix(open) {
            let Some(c) = s.find(close) else {
                return fail(
                    at(line, char_off(t, offset_of(line, tail))),
                    format!("expected `{close}` to close `{open}`"),
                );
            };
            stereo = Some((
                Stereo::parse(&s[..c]),
                at(line, char_off(t, offset_of(line, tail))),
            ));
            tail = s[c + 2..].trim_start();
        }
    }
    Ok((stereo, tail))
}

pub(super) enum NoteStart {
    Done(Stmt),
    Block(Ident),
}

pub(super) fn parse_note(line: &Line) -> Result<NoteStart, ParseError> {
    let t = line.text;
    let rest = t[4..].trim_start();
    if let Some(q) = rest.strip_prefix('"') {
        // Floating note: `note "text" as N`.
        let Some(close) = q.find('"') else {
            return fail(line.pos, "unterminated string: expected a closing `\"`");
        };
        return Ok(NoteStart::Done(Stmt {
            pos: line.pos,
            kind: StmtKind::Note {
                target: None,
                text: q[..close].to_string(),
            },
        }));
    }
    let mut words = rest.splitn(3, char::is_whitespace);
    let side = words.next().unwrap_or("").to_ascii_lowercase();
    let of = words.next().unwrap_or("").to_ascii_lowercase();
    let tail = words.next().unwrap_or("").trim_start();
    if !(side == "left" || side == "right") || of != "of" || tail.is_empty() {
        return fail(
            line.pos,
            "expected `note left of <id> : text`, `note right of <id>` … `end note`, or `note \"text\" as <id>`",
        );
    }
    let (id_text, text) = match tail.find(':') {
        Some(i) => (tail[..i].trim(), Some(tail[i + 1..].trim())),
        None => (tail.trim(), None),
    };
    let target = ident(line, id_text, offset_of(line, id_text))?;
    Ok(match text {
        Some(text) => NoteStart::Done(Stmt {
            pos: line.pos,
            kind: StmtKind::Note {
                target: Some(target),
                text: text.to_string(),
            },
        }),
        None => NoteStart::Block(target),
    })
}

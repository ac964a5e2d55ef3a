//! Line pre-pass: drops YAML front matter (keeping its `title:`), `%%{init}%%` directives,
//! `%%` comments (whole-line and trailing), `#` comment lines, Markdown code fences and blank
//! lines, and yields each remaining line trimmed, with its position. A control character
//! other than tab, CR and LF is refused wherever it stands (as JSON refuses one in a string).

use super::ast::Pos;

#[derive(Debug, Clone, PartialEq)]
pub struct Line<'a> {
    /// Position of the first non-blank character.
    pub pos: Pos,
    /// The statement text, trimmed, with any trailing `%%` comment removed.
    pub text: &'a str,
}

#[derive(Debug, Clone, PartialEq)]
pub struct LexError {
    pub pos: Pos,
    pub message: String,
}

pub struct Lexed<'a> {
    pub title: Option<String>,
    pub lines: Vec<Line<'a>>,
}

/// Split `text` into statement lines.
pub fn lex(text: &str) -> Result<Lexed<'_>, LexError> {
    // Editors on Windows may start a UTF-8 file with a byte-order mark: it is no statement.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut state = Blocks::default();
    let mut lines = Vec::new();
    for (i, raw) in text.split('\n').enumerate() {
        let raw = raw.strip_suffix('\r').unwrap_or(raw);
        let no = i as u32 + 1;
        no_control_characters(raw, no)?;
        let indent = raw.chars().take_while(|c| c.is_whitespace()).count() as u32;
        let pos = Pos {
            line: no,
            col: indent + 1,
        };
        if let Some(body) = state.statement(raw.trim(), pos) {
            lines.push(Line { pos, text: body });
        }
    }
    if let Some(pos) = state.front {
        return Err(LexError {
            pos,
            message: "front matter opened with `---` is never closed: expected a second `---`"
                .into(),
        });
    }
    if let Some(pos) = state.directive {
        return Err(LexError {
            pos,
            message: "`%%{` directive is never closed: expected `}%%`".into(),
        });
    }
    Ok(Lexed {
        title: state.title,
        lines,
    })
}

/// A NUL or escape in an id would reach state keys, messages and the terminal.
fn no_control_characters(raw: &str, line: u32) -> Result<(), LexError> {
    let Some((col, c)) = raw
        .chars()
        .enumerate()
        .find(|(_, c)| c.is_control() && !matches!(c, '\t' | '\r'))
    else {
        return Ok(());
    };
    Err(LexError {
        pos: Pos {
            line,
            col: col as u32 + 1,
        },
        message: format!(
            "control character U+{:04X} in the diagram: only tab, CR and LF are allowed",
            c as u32
        ),
    })
}

/// The blocks that are no statements: front matter (`---` … `---`, its `title:` kept) and
/// `%%{ … }%%` directives, open where they started.
#[derive(Default)]
struct Blocks {
    title: Option<String>,
    front: Option<Pos>,
    directive: Option<Pos>,
    seen_content: bool,
}

impl Blocks {
    /// The statement a trimmed line holds, if any (comments, blank lines and blocks hold none).
    fn statement<'t>(&mut self, t: &'t str, pos: Pos) -> Option<&'t str> {
        if self.front.is_some() {
            if t == "---" {
                self.front = None;
            } else if let Some(v) = t.strip_prefix("title:") {
                self.title = Some(unquote(v.trim()).to_string());
            }
            return None;
        }
        if self.directive.is_some() {
            if t.contains("}%%") {
                self.directive = None;
            }
            return None;
        }
        if t.is_empty() {
            return None;
        }
        if !self.seen_content && t == "---" {
            self.front = Some(pos);
            self.seen_content = true;
            return None;
        }
        self.seen_content = true;
        if t.starts_with("%%{") {
            if !t.contains("}%%") {
                self.directive = Some(pos);
            }
            return None;
        }
        if t.starts_with("%%") || t.starts_with('#') || t.starts_with("```") {
            return None;
        }
        Some(strip_comment(t)).filter(|body| !body.is_empty())
    }
}

/// Remove a trailing `%%` comment that is outside double quotes.
fn strip_comment(t: &str) -> &str {
    let mut quoted = false;
    let bytes = t.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'"' => quoted = !quoted,
            b'%' if !quoted && bytes.get(i + 1) == Some(&b'%') => return t[..i].trim_end(),
            _ => {}
        }
    }
    t
}

fn unquote(s: &str) -> &str {
    s.strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .or_else(|| s.strip_prefix('\'').and_then(|s| s.strip_suffix('\'')))
        .unwrap_or(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drops_front_matter_directives_and_comments() {
        let src = "---\ntitle: \"Flow\"\n---\n%%{init: {'theme': 'dark'}}%%\n%% note\n```mermaid\nstateDiagram-v2\n  A --> B %% trailing\n\n# hash\n```\n";
        let l = lex(src).unwrap();
        assert_eq!(l.title.as_deref(), Some("Flow"));
        let texts: Vec<&str> = l.lines.iter().map(|l| l.text).collect();
        assert_eq!(texts, vec!["stateDiagram-v2", "A --> B"]);
        assert_eq!(l.lines[1].pos, Pos { line: 8, col: 3 });
    }

    #[test]
    fn percent_inside_quotes_is_kept() {
        let l = lex("stateDiagram\nstate \"50%% done\" as A").unwrap();
        assert_eq!(l.lines[1].text, "state \"50%% done\" as A");
    }

    #[test]
    fn control_characters_are_refused_at_their_position() {
        let e = lex("stateDiagram-v2\n [*] --> A\0\n").err().unwrap();
        assert_eq!(e.pos, Pos { line: 2, col: 11 });
        assert!(e.message.contains("U+0000"), "{}", e.message);
        let e = lex("stateDiagram-v2\n%% \u{1b}[2J\n").err().unwrap();
        assert_eq!(e.pos, Pos { line: 2, col: 4 });
        assert!(lex("stateDiagram-v2\r\n\tA --> B\r\n").is_ok());
    }

    #[test]
    fn unclosed_blocks_are_errors() {
        assert_eq!(lex("---\ntitle: x\n").err().unwrap().pos.line, 1);
        assert_eq!(lex("stateDiagram\n%%{init:\n").err().unwrap().pos.line, 2);
    }
}

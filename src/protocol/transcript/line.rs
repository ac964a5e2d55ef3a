//! Tolerant reading of transcript lines: any field may be missing or of another type.

use std::io::{self, BufRead};

use serde_json::Value;

use crate::store::record::ResponseInfo;

/// Longest text kept in a record's `extra` (error text, last assistant message).
pub(super) const TEXT_LIMIT: usize = 2000;
/// Largest tool response kept whole in a record, in bytes of JSON.
pub(super) const RESPONSE_LIMIT: usize = 4096;

/// Calls `f` with each line's bytes (without `\n` / `\r\n`), however long the line.
pub(super) fn for_each_line(mut reader: impl BufRead, mut f: impl FnMut(&[u8])) -> io::Result<()> {
    let mut buf = Vec::new();
    loop {
        buf.clear();
        if reader.read_until(b'\n', &mut buf)? == 0 {
            return Ok(());
        }
        let line = buf.strip_suffix(b"\n").unwrap_or(&buf);
        f(line.strip_suffix(b"\r").unwrap_or(line));
    }
}

/// What a line holds: nothing (blank), a JSON value, or garbage.
pub(super) enum Parsed {
    Blank,
    Value(Value),
    Malformed,
}

/// Parses one line; invalid UTF-8 is replaced (lossy) rather than losing the line.
pub(super) fn parse(bytes: &[u8]) -> Parsed {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Parsed::Blank;
    }
    let parsed = match std::str::from_utf8(bytes) {
        Ok(text) => serde_json::from_str(text),
        Err(_) => serde_json::from_str(&String::from_utf8_lossy(bytes)),
    };
    match parsed {
        Ok(value @ Value::Object(_)) => Parsed::Value(value),
        _ => Parsed::Malformed,
    }
}

pub(super) fn str_at<'v>(v: &'v Value, key: &str) -> Option<&'v str> {
    v.get(key).and_then(Value::as_str)
}

pub(super) fn flag(v: &Value, key: &str) -> bool {
    v.get(key).and_then(Value::as_bool).unwrap_or(false)
}

/// Content blocks of a message; string content is one text block.
pub(super) fn blocks(content: Option<&Value>) -> Vec<&Value> {
    match content {
        Some(Value::Array(items)) => items.iter().collect(),
        Some(text @ Value::String(_)) => vec![text],
        _ => Vec::new(),
    }
}

/// A block's text: a string block, a `text` block, or nothing.
pub(super) fn block_text(block: &Value) -> Option<&str> {
    match block {
        Value::String(text) => Some(text),
        _ if str_at(block, "type") == Some("text") => str_at(block, "text"),
        _ => None,
    }
}

/// All text in a content value (a string, or the text blocks joined by newlines).
pub(super) fn content_text(content: Option<&Value>) -> Option<String> {
    let texts: Vec<&str> = blocks(content).into_iter().filter_map(block_text).collect();
    (!texts.is_empty()).then(|| texts.join("\n"))
}

fn between<'t>(text: &'t str, open: &str, close: &str) -> Option<&'t str> {
    let start = text.find(open)? + open.len();
    let len = text[start..].find(close)?;
    Some(text[start..start + len].trim())
}

/// The prompt a `<command-name>/x</command-name>…<command-args>a</command-args>` text stands
/// for (`/x a`), as Claude Code writes slash commands into the transcript.
pub(super) fn command_prompt(text: &str) -> Option<String> {
    let name = between(text, "<command-name>", "</command-name>")?;
    let name = name.trim_start_matches('/');
    if name.is_empty() {
        return None;
    }
    let args = between(text, "<command-args>", "</command-args>").unwrap_or("");
    Some(if args.is_empty() {
        format!("/{name}")
    } else {
        format!("/{name} {args}")
    })
}

/// Text Claude Code adds around local commands; not typed by the user.
pub(super) fn is_command_output(text: &str) -> bool {
    let text = text.trim_start();
    [
        "<local-command-stdout>",
        "<local-command-stderr>",
        "<local-command-caveat>",
    ]
    .iter()
    .any(|tag| text.starts_with(tag))
}

/// `[Request interrupted by user]` and its variants: the turn ended without a Stop.
pub(super) fn is_interruption(text: &str) -> bool {
    text.trim_start()
        .starts_with("[Request interrupted by user")
}

/// At most `max` characters of `text`.
pub(super) fn bounded(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((end, _)) => text[..end].to_string(),
        None => text.to_string(),
    }
}

/// A bounded copy of a tool response, as the hook keeps it: whole when small, else a prefix of
/// its JSON text marked truncated.
pub(super) fn response_info(value: &Value) -> ResponseInfo {
    let text = value.to_string();
    if text.len() <= RESPONSE_LIMIT {
        return ResponseInfo {
            size: text.len() as u64,
            truncated: false,
            value: value.clone(),
        };
    }
    let mut end = RESPONSE_LIMIT;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    ResponseInfo {
        size: text.len() as u64,
        truncated: true,
        value: Value::String(text[..end].into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn command_tags_give_the_typed_prompt() {
        let text = "<command-message>prime</command-message>\n<command-name>/prime</command-name>\n\
                    <command-args>and look around</command-args>";
        assert_eq!(
            command_prompt(text).as_deref(),
            Some("/prime and look around")
        );
        let bare = "<command-name>/mcp</command-name>\n   <command-args></command-args>";
        assert_eq!(command_prompt(bare).as_deref(), Some("/mcp"));
        assert_eq!(command_prompt("<command-name></command-name>"), None);
        assert_eq!(command_prompt("plain prompt"), None);
    }

    #[test]
    fn lines_parse_leniently() {
        assert!(matches!(parse(b"  "), Parsed::Blank));
        assert!(matches!(parse(b"[1]"), Parsed::Malformed));
        assert!(matches!(parse(b"{\"type\":"), Parsed::Malformed));
        let Parsed::Value(v) = parse(b"{\"text\":\"a\xffb\"}") else {
            panic!("lossy parse")
        };
        assert_eq!(v["text"], "a\u{fffd}b");
    }

    #[test]
    fn big_responses_are_cut_on_a_char_boundary() {
        let big = json!({ "stdout": "é".repeat(RESPONSE_LIMIT) });
        let info = response_info(&big);
        assert!(info.truncated);
        assert!(
            info.value
                .as_str()
                .is_some_and(|s| s.len() <= RESPONSE_LIMIT)
        );
        assert_eq!(info.size, big.to_string().len() as u64);
        assert!(!response_info(&json!({"ok": true})).truncated);
        assert_eq!(bounded("héllo", 2), "hé");
    }
}

//! Untrusted text (tool inputs, prompts, reasons, names and descriptions from sequence files,
//! file paths) made safe for a terminal: every face that prints to one cleans it here.
//!
//! The dashboard's terminal library already drops control characters when it writes a cell,
//! but an escape sequence's printable tail (`[31m`, `]0;title`) would still show; so whole
//! sequences go. Bidi overrides go too: they can make a command read differently than it runs.
//! JSON output is not cleaned: serde escapes control characters, and values stay exact.
//!
//! Written here rather than taken from a crate: the lock file's only ANSI parser
//! (`anstyle-parse`, through clap's `anstream`) is a clap internal, not a dependency of ours,
//! and stripping crates leave bidi controls and C1 string forms in place.

use serde_json::Value;

/// One line, at most `max` characters (an ellipsis marks a cut): escape sequences (CSI, OSC,
/// DCS/SOS/PM/APC strings, two-byte escapes, their C1 forms) removed whole, other control
/// characters and bidi controls removed, whitespace runs collapsed to one space.
pub fn clean(text: &str, max: usize) -> String {
    // Most text is already one plain line: printable ASCII, single spaces, short enough.
    let b = text.as_bytes();
    if b.len() <= max
        && b.first() != Some(&b' ')
        && b.last() != Some(&b' ')
        && b.iter().all(|c| (0x20..0x7f).contains(c))
        && !text.contains("  ")
    {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len().min(max.saturating_mul(4)));
    let mut count = 0usize;
    let mut pending_space = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let c = match c {
            '\u{1b}' => {
                match chars.next() {
                    Some('[') => skip_csi(&mut chars),
                    Some(']' | 'P' | 'X' | '^' | '_') => skip_string(&mut chars),
                    // A two-byte escape (ESC 7, ESC c…): the second byte goes with it.
                    _ => {}
                }
                continue;
            }
            '\u{9b}' => {
                skip_csi(&mut chars);
                continue;
            }
            '\u{90}' | '\u{98}' | '\u{9d}' | '\u{9e}' | '\u{9f}' => {
                skip_string(&mut chars);
                continue;
            }
            c if c.is_whitespace() => {
                pending_space = count > 0;
                continue;
            }
            c if c.is_control() || is_bidi_control(c) => continue,
            c => c,
        };
        if pending_space {
            if count + 1 >= max {
                out.push('…');
                return out;
            }
            out.push(' ');
            count += 1;
            pending_space = false;
        }
        if count + 1 >= max && chars.peek().is_some() {
            out.push('…');
            return out;
        }
        out.push(c);
        count += 1;
    }
    out
}

/// Text for a terminal, layout kept: escape sequences removed whole (as in [`clean`]), other
/// control characters and bidi controls removed; newlines and tabs stay, spaces are not
/// collapsed (the command's own columns line up), nothing is cut.
pub fn terminal(text: &str) -> String {
    let safe = |c: char| c == '\n' || c == '\t' || !(c.is_control() || is_bidi_control(c));
    if text.chars().all(safe) {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\u{1b}' => match chars.next() {
                Some('[') => skip_csi(&mut chars),
                Some(']' | 'P' | 'X' | '^' | '_') => skip_string(&mut chars),
                _ => {}
            },
            '\u{9b}' => skip_csi(&mut chars),
            '\u{90}' | '\u{98}' | '\u{9d}' | '\u{9e}' | '\u{9f}' => skip_string(&mut chars),
            // A carriage return could make a line overwrite itself on screen.
            c if safe(c) => out.push(c),
            _ => {}
        }
    }
    out
}

/// An error message for a terminal: one line, at most `max` characters, with every control
/// and bidi character shown as an escape (`\u{1b}`, `\n`) rather than dropped, so the user
/// sees what the file really holds and the terminal runs none of it.
pub fn escape(text: &str, max: usize) -> String {
    let plain = |c: char| !(c.is_control() || is_bidi_control(c));
    if text.len() <= max && text.chars().all(plain) {
        return text.to_string();
    }
    let mut shown: Vec<char> = Vec::with_capacity(text.len().min(max + 1));
    for c in text.chars() {
        match c {
            '\n' => shown.extend(['\\', 'n']),
            '\t' => shown.extend(['\\', 't']),
            '\r' => shown.extend(['\\', 'r']),
            c if plain(c) => shown.push(c),
            c => shown.extend(format!("\\u{{{:x}}}", u32::from(c)).chars()),
        }
        if shown.len() > max {
            shown.truncate(max.saturating_sub(1));
            shown.push('…');
            break;
        }
    }
    shown.into_iter().collect()
}

/// Text shown as it is with its layout (newlines, tabs) kept, but every other control
/// character (ESC, BEL, NUL, C1) and every bidi control written out as an escape
/// (`\u{1b}`, `\u{202e}`): what reaches a terminal or a person runs nothing and reorders
/// nothing, and they still see that the text holds it. Nothing is cut. For the hook's answers
/// (which Claude Code shows) and any text printed whole.
pub fn visible(text: &str) -> std::borrow::Cow<'_, str> {
    let plain = |c: char| c == '\n' || c == '\t' || !(c.is_control() || is_bidi_control(c));
    if text.chars().all(plain) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if plain(c) {
            out.push(c);
        } else {
            out.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
        }
    }
    std::borrow::Cow::Owned(out)
}

/// [`visible`] over every string of a JSON value, keys included.
pub fn visible_json(v: &mut Value) {
    match v {
        Value::String(s) => {
            if let std::borrow::Cow::Owned(o) = visible(s) {
                *s = o;
            }
        }
        Value::Array(a) => a.iter_mut().for_each(visible_json),
        Value::Object(m) => {
            let dirty = m
                .keys()
                .any(|k| matches!(visible(k), std::borrow::Cow::Owned(_)));
            if dirty {
                let old = std::mem::take(m);
                for (k, mut val) in old {
                    visible_json(&mut val);
                    m.insert(visible(&k).into_owned(), val);
                }
            } else {
                m.values_mut().for_each(visible_json);
            }
        }
        _ => {}
    }
}

/// CSI: parameters and intermediates up to the final byte (`@`–`~`).
fn skip_csi(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    for c in chars.by_ref() {
        if ('@'..='~').contains(&c) {
            return;
        }
    }
}

/// OSC/DCS/SOS/PM/APC: up to BEL or the string terminator (ESC `\` or C1 ST).
fn skip_string(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    while let Some(c) = chars.next() {
        match c {
            '\u{7}' | '\u{9c}' => return,
            '\u{1b}' => {
                if chars.peek() == Some(&'\\') {
                    chars.next();
                }
                return;
            }
            _ => {}
        }
    }
}

fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{061c}')
}

/// Input fields that say what a call does, most telling first.
pub const SUMMARY_KEYS: &[&str] = &[
    "command",
    "file_path",
    "notebook_path",
    "path",
    "pattern",
    "url",
    "query",
    "skill",
    "prompt",
    "description",
    "stage",
];

/// A one-line summary of a tool input: its most telling field, or compact JSON.
pub fn summarize(input: &Value, max: usize) -> String {
    match input {
        Value::Null => String::new(),
        Value::String(s) => clean(s, max),
        Value::Object(map) => {
            for key in SUMMARY_KEYS {
                if let Some(Value::String(s)) = map.get(*key) {
                    return clean(s, max);
                }
            }
            clean(&compact_json(input, max * 4), max)
        }
        other => clean(&compact_json(other, max * 4), max),
    }
}

/// Compact JSON, cut early so a huge input costs little.
fn compact_json(v: &Value, limit: usize) -> String {
    let s = v.to_string();
    if s.len() <= limit {
        return s;
    }
    let mut end = limit;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    s[..end].to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    #[test]
    fn visible_text_shows_every_control_and_bidi_character_as_an_escape() {
        assert_eq!(
            visible("plain\ntext\twith layout"),
            "plain\ntext\twith layout"
        );
        assert_eq!(
            visible("\u{1b}]0;owned\u{7}a\u{0}b\u{9b}c\u{202e}d\r"),
            "\\u{1b}]0;owned\\u{7}a\\u{0}b\\u{9b}c\\u{202e}d\\u{d}"
        );
        let mut v = json!({"reason": "x\u{1b}[2J", "list": ["\u{2066}"], "k\u{7}": 1});
        visible_json(&mut v);
        assert_eq!(
            v,
            json!({"reason": "x\\u{1b}[2J", "list": ["\\u{2066}"], "k\\u{7}": 1})
        );
    }

    #[test]
    fn escapes_are_removed_whole() {
        assert_eq!(clean("\u{1b}[31mred\u{1b}[0m text", 80), "red text");
        assert_eq!(clean("a\u{1b}]0;evil title\u{7}b", 80), "ab");
        assert_eq!(
            clean("a\u{1b}]8;;http://x\u{1b}\\link\u{1b}]8;;\u{1b}\\b", 80),
            "alinkb"
        );
        assert_eq!(clean("x\u{9b}2Jy", 80), "xy");
        assert_eq!(clean("x\u{1b}Py\u{1b}\\z", 80), "xz");
        assert_eq!(clean("rm -rf \u{202e}txt.exe", 80), "rm -rf txt.exe");
    }

    #[test]
    fn error_text_shows_control_characters_escaped() {
        assert_eq!(escape("plain text", 100), "plain text");
        assert_eq!(
            escape("\u{1b}]0;pwned\u{7}hi\u{1b}[31mred\n\u{202e}x", 100),
            "\\u{1b}]0;pwned\\u{7}hi\\u{1b}[31mred\\n\\u{202e}x"
        );
        assert_eq!(escape("abcdef", 6), "abcdef");
        assert_eq!(escape("abcdefg", 6), "abcde…");
        assert_eq!(escape("ab\u{1b}", 6), "ab\\u{…");
        let long = escape(&"\u{1b}".repeat(10_000), 50);
        assert_eq!(long.chars().count(), 50);
        assert!(!long.chars().any(char::is_control));
    }

    #[test]
    fn terminal_text_keeps_its_layout_and_loses_its_escapes() {
        assert_eq!(
            terminal("name  \u{1b}[31mred\u{1b}[0m\n\tnext line"),
            "name  red\n\tnext line"
        );
        assert_eq!(terminal("a\u{1b}]0;pwned\u{7}b\r\u{202e}c"), "abc");
        assert_eq!(terminal("x\u{9b}2Jy\u{1b}Pq\u{1b}\\z"), "xyz");
        assert_eq!(terminal("plain ▸ text – ok"), "plain ▸ text – ok");
    }

    #[test]
    fn whitespace_collapses_and_text_is_cut() {
        assert_eq!(clean("  a\n\n\tb  ", 80), "a b");
        assert_eq!(clean("abcdefgh", 5), "abcd…");
        assert_eq!(clean("abcd", 4), "abcd");
    }

    #[test]
    fn summaries_pick_the_telling_field() {
        assert_eq!(
            summarize(&json!({"command": "ls -la", "x": 1}), 40),
            "ls -la"
        );
        assert_eq!(summarize(&json!({"file_path": "/a/b.rs"}), 40), "/a/b.rs");
        assert_eq!(summarize(&json!({"n": 1}), 40), "{\"n\":1}");
        assert_eq!(summarize(&Value::Null, 40), "");
    }

    proptest! {
        #[test]
        fn output_has_no_control_characters(s in "\\PC*|[\\x00-\\x1f\\x7f-\\x9f\\[\\]a-z;]*", max in 1usize..60) {
            let out = clean(&s, max);
            prop_assert!(!out.chars().any(|c| c.is_control() || is_bidi_control(c)));
            prop_assert!(out.chars().count() <= max);
        }

        #[test]
        fn terminal_output_has_no_control_but_newlines_and_tabs(s in "\\PC*|[\\x00-\\x1f\\x7f-\\x9f\\[\\]a-z;\u{202e}]*") {
            let out = terminal(&s);
            prop_assert!(!out.chars().any(|c| (c.is_control() && c != '\n' && c != '\t') || is_bidi_control(c)));
        }
    }
}

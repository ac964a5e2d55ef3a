//! Copy to the clipboard with OSC 52: the terminal (not this process) owns the clipboard, so it
//! works over ssh. tmux passes the sequence on when its `set-clipboard` option is `on`
//! (`set -g set-clipboard on` in `~/.tmux.conf`); with `external` (its default) it keeps it.

use base64::Engine;

use super::model::Model;

/// Bytes of text sent at most (terminals cap OSC 52 payloads; xterm at about 100 kB).
pub const MAX_BYTES: usize = 64 * 1024;

/// The next call as the agent would make it: the tool, with the input values that tell the
/// step apart (`mcp__hestai__odyssean_anchor(stage="bind")`).
pub fn next_call(m: &Model) -> Option<String> {
    let n = m.status()?.next.as_ref()?;
    let args = n.call.find('(').map_or("", |i| &n.call[i..]);
    Some(format!("{}{args}", n.tool))
}

/// The reason the newest refusal gave.
pub fn last_reason(m: &Model) -> Option<String> {
    let d = m.shown().denials.back()?;
    (!d.reason.is_empty()).then(|| d.reason.clone())
}

/// The escape sequence that puts `text` on the clipboard (cut at [`MAX_BYTES`] on a character
/// boundary; control characters never reach it as such, being base64).
pub fn osc52(text: &str) -> String {
    let mut end = text.len().min(MAX_BYTES);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let b64 = base64::engine::general_purpose::STANDARD.encode(&text.as_bytes()[..end]);
    format!("\x1b]52;c;{b64}\x07")
}

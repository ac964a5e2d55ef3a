//! Where keys sit in the source text (serde's value trees drop positions).

use std::collections::BTreeMap;

use crate::dialects::locate::LineIndex;
use crate::engine::ir::Span;

/// Where each key of an object section sits, found in one forward scan (keys appear in file
/// order), so large files cost linear time.
pub(super) fn key_spans<'k>(
    text: &str,
    section: &str,
    keys: impl Iterator<Item = &'k String>,
    keys_only: bool,
) -> BTreeMap<String, Span> {
    let mut index = LineIndex::new(text);
    let mut out = BTreeMap::new();
    let mut from = text.find(section).map(|i| i + section.len()).unwrap_or(0);
    // Keys spelled with escapes are not found as written; a scan budget keeps hostile files
    // from making this quadratic (positions are then left out, nothing else changes).
    let mut budget = text.len().saturating_mul(8);
    for k in keys {
        let quoted = format!("\"{k}\"");
        let mut at = from;
        // With `keys_only`, a mention as a value (`"next_allowed": ["x"]`) is passed over.
        while let Some(i) = text[at..].find(&quoted) {
            budget = budget.saturating_sub(i + quoted.len());
            let end = at + i + quoted.len();
            let is_key = text[end..].trim_start().starts_with(':');
            if !keys_only || is_key {
                let (line, col) = index.line_col(at + i);
                out.insert(k.clone(), Span::at(line, col));
                from = end;
                break;
            }
            at = end;
        }
        if !out.contains_key(k.as_str()) {
            budget = budget.saturating_sub(text.len() - at);
        }
        if budget == 0 {
            break;
        }
    }
    out
}

//! `seed explain` as text and JSON: the verdict a call would get now, each rule that decides
//! it with where the sequence file declares it, and the shortest way to make it legal.

use serde_json::{Value, json};

use super::sanitize;
use crate::engine::explain::{Explanation, Reason};
use crate::engine::ir::Span;

/// Where a sequence came from, to name the file a span points into.
pub struct Source<'a> {
    /// The loaded file's path, or `builtin:<file>` for a built-in.
    pub path: &'a str,
    /// The other files it was assembled from ([`Span::file`] `k` is `files[k - 1]`).
    pub files: &'a [String],
}

impl Source<'_> {
    /// `path:line:column` of a span; a nested file is named beside the loaded one.
    pub fn place(&self, span: &Span) -> String {
        let main = self.path.strip_prefix("builtin:").unwrap_or(self.path);
        let file = match span.file {
            0 => main.to_string(),
            k => match self.files.get(usize::from(k) - 1) {
                Some(f) => match std::path::Path::new(main).parent() {
                    Some(dir) if !dir.as_os_str().is_empty() => dir.join(f).display().to_string(),
                    _ => f.clone(),
                },
                None => main.to_string(),
            },
        };
        format!("{file}:{}:{}", span.line, span.col)
    }
}

fn clean(s: &str) -> String {
    sanitize::clean(s, 2000)
}

fn rule_line(r: &Reason, src: &Source<'_>) -> String {
    let mark = match (r.effect, r.decides) {
        (_, true) => "▶",
        ("refuses", _) => "✗",
        _ => "✓",
    };
    let at = r
        .span
        .as_ref()
        .map(|s| format!("  ({})", clean(&src.place(s))))
        .unwrap_or_default();
    let mut line = format!(
        "  {mark} {}: {}{at}\n",
        r.kind.replace('_', " "),
        clean(&r.text)
    );
    if let Some(f) = &r.in_force {
        line.push_str(&format!("      {}\n", clean(f)));
    }
    line
}

pub fn explain_text(e: &Explanation, src: &Source<'_>) -> String {
    let mut s = format!(
        "{} — {}: {} ({})\n",
        clean(&e.sequence),
        clean(&e.call),
        e.decision.as_str(),
        e.mode.as_str()
    );
    let said = e
        .warning
        .as_deref()
        .filter(|w| !w.is_empty())
        .unwrap_or(&e.reason);
    if !said.is_empty() {
        s.push_str(&format!("  {}\n", clean(said)));
    }
    s.push_str("rules (▶ decides):\n");
    for r in &e.rules {
        s.push_str(&rule_line(r, src));
    }
    if let Some(b) = &e.breaker {
        let past = if b.escalated { ": escalated" } else { "" };
        s.push_str(&format!(
            "breaker: refused {} time{} in a row (escalates past {}){past}\n",
            b.count,
            if b.count == 1 { "" } else { "s" },
            b.limit
        ));
    }
    if !e.way.is_empty() || !e.suggestions.is_empty() {
        s.push_str("to make it legal:\n");
    }
    if !e.way.is_empty() {
        let way: Vec<String> = e.way.iter().map(|c| clean(c)).collect();
        s.push_str(&format!("  way: {}\n", way.join(" → ")));
    }
    for (i, line) in e.suggestions.iter().enumerate() {
        s.push_str(&format!("  {}. {}\n", i + 1, clean(line)));
    }
    s
}

pub fn explain_json(e: &Explanation, src: &Source<'_>) -> Value {
    let rules: Vec<Value> = e
        .rules
        .iter()
        .map(|r| {
            json!({
                "kind": r.kind,
                "effect": r.effect,
                "decides": r.decides,
                "text": r.text,
                "at": r.span.as_ref().map(|s| src.place(s)),
                "in_force": r.in_force,
            })
        })
        .collect();
    json!({
        "sequence": e.sequence,
        "call": e.call,
        "decision": e.decision,
        "kind": e.kind,
        "mode": e.mode,
        "reason": e.reason,
        "warning": e.warning,
        "rules": rules,
        "breaker": e.breaker,
        "way": e.way,
        "suggestions": e.suggestions,
    })
}

//! The one-line guidance injected into prompts, from the status every face shows.

use crate::engine::ir::Outcome;
use crate::engine::machine::Machine;
use crate::engine::snapshot::Snapshot;

impl Machine {
    /// The one-line guidance injected into prompts (≤ 300 characters). Calls are named as the
    /// agent makes them (`mcp__seed__who_am_i`, `Skill(skill="hope:intent")`), as in every
    /// refusal.
    pub fn guidance_line(&self, snap: &Snapshot) -> String {
        let st = self.status(snap);
        let head = format!(
            "[SEED SEQUENCE] \"{}\" · {}",
            st.sequence,
            crate::engine::wording::position(&st.step, st.step_is_call)
        );
        let failed = st
            .progress
            .ended
            .as_ref()
            .filter(|e| e.outcome == Outcome::Error);
        let line = match failed {
            // A failed ending is not "done": what to do instead, and how far it got.
            Some(e) => {
                let mut line = format!("{head} · ended in error at \"{}\"", e.ending);
                if let Some(r) = &e.recovery {
                    line.push_str(&format!(" · recovery: {r}"));
                }
                if let Some(n) = &st.next {
                    line.push_str(&format!(" · next: {}", n.tool));
                }
                format!("{line} · highest {:.0}%", st.progress.highest)
            }
            None => {
                let failed = st
                    .failed_call
                    .as_ref()
                    .map(|f| match &f.error {
                        Some(e) => format!(" · {} failed: {}", f.call, truncate_chars(e, 80)),
                        None => format!(" · {} failed", f.call),
                    })
                    .unwrap_or_default();
                let next = match (&st.next, st.progress.done) {
                    (_, true) => "done".to_string(),
                    (Some(n), _) if n.blocked_by.is_some() => {
                        format!("{} (blocked by deep state)", n.tool)
                    }
                    (Some(n), _) => match self.unavailable(snap, &n.tool) {
                        Some(u) => format!("{} ({})", n.tool, u.brief()),
                        None => n.tool.clone(),
                    },
                    (None, _) if st.allowed.is_any() => "any tool".to_string(),
                    (None, _) => "—".to_string(),
                };
                format!(
                    "{head}{failed} · next: {next} · {:.0}% done",
                    st.progress.overall
                )
            }
        };
        truncate_chars(&line, 300)
    }
}

pub fn truncate_chars(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut out: String = s.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

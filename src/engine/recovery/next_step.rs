//! The calls a transition stands for: a step as the agent makes it (canonical and Claude Code
//! spelling, with the input its guard needs), and the calls that could fire now.

use serde::{Deserialize, Serialize};

use crate::engine::event::{EventKind, claude_tool_name};
use crate::engine::ir::{Guard, InputMatcher, Transition, Trigger};
use crate::engine::machine::Machine;
use crate::engine::snapshot::Snapshot;
use crate::engine::{guard, interpolate, pattern, tool_name};

/// One call the agent can make.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NextStep {
    /// Canonical form with input: `starlog.orient`, `odyssean_anchor(stage="bind")`.
    pub call: String,
    /// The tool as Claude Code names it: `mcp__starlog__orient`, `Skill`, `/hope:intent`.
    pub tool: String,
    /// Label of the state the call leads to.
    pub leads_to: String,
    /// Set when an active state's policy refuses this call now (a deep-state constraint over
    /// the railroad's next step): who refuses it and why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocked_by: Option<String>,
    #[serde(skip)]
    pub transition: usize,
}

impl NextStep {
    /// `tool` as the agent's calls in this session spell its server (a plugin's or not), and
    /// `${var}` in its input as the variable holds it now (`WebFetch(url="${source_url}")` is
    /// a call to one URL, the one the session was given).
    pub(super) fn spelled_for(mut self, m: &Machine, snap: &Snapshot) -> NextStep {
        self.tool = tool_name::spell_seen(&self.tool, &m.seen_servers(snap), &m.seen_plugins(snap));
        if self.call.contains("${") || self.tool.contains("${") {
            let scope = interpolate::Scope {
                vars: &snap.vars,
                flags: &snap.flags,
            };
            self.call = interpolate::shown(&self.call, &scope);
            self.tool = interpolate::shown(&self.tool, &scope);
        }
        self
    }
}

/// Input values a transition needs, read from its guard (`Input` matchers under `all`).
fn required_input(guard: &Option<Guard>, out: &mut Vec<(String, String)>) {
    fn walk(g: &Guard, out: &mut Vec<(String, String)>) {
        match g {
            Guard::Input { pointer, matcher } => {
                let key = pointer.trim_start_matches('/').replace('/', ".");
                let v = match matcher {
                    InputMatcher::Glob(s) => format!("\"{s}\""),
                    InputMatcher::Equals(v) => v.to_string(),
                    InputMatcher::Present => "…".into(),
                };
                out.push((key, v));
            }
            Guard::InList { pointer, var } => {
                let key = pointer.trim_start_matches('/').replace('/', ".");
                out.push((key, format!("<one of {var}>")));
            }
            Guard::All { of } => of.iter().for_each(|g| walk(g, out)),
            _ => {}
        }
    }
    if let Some(g) = guard {
        walk(g, out);
    }
}

/// Whether `input` satisfies the input matchers of a guard (other conditions are the step's
/// business: they depend on where the sequence is when the call is made). A matcher written
/// with `${var}` takes the values `snap` holds (any value for one unset).
pub(crate) fn input_fits(
    guard: &Option<Guard>,
    input: &serde_json::Value,
    snap: &Snapshot,
) -> bool {
    fn walk(g: &Guard, input: &serde_json::Value, snap: &Snapshot) -> bool {
        match g {
            Guard::Input { .. } => guard::eval(g, snap, input),
            Guard::All { of } => of.iter().all(|g| walk(g, input, snap)),
            _ => true,
        }
    }
    guard.as_ref().is_none_or(|g| walk(g, input, snap))
}

impl Machine {
    /// The call that fires transition `ti`, in canonical and Claude Code spelling.
    pub fn describe_transition(&self, ti: usize) -> Option<NextStep> {
        let t: &Transition = &self.chart.transitions[ti];
        let Trigger::Event(p) = &t.trigger else {
            return None;
        };
        // Only tools, skills and commands are calls; a prompt or a lifecycle event is waited for.
        if p.alts[0].kind.is_some_and(|k| !k.is_action()) {
            return None;
        }
        let base = p.describe_call();
        let mut extra = Vec::new();
        required_input(&t.guard, &mut extra);
        let call = if extra.is_empty() {
            base.clone()
        } else {
            let args: Vec<String> = extra.iter().map(|(k, v)| format!("{k}={v}")).collect();
            if let Some(stripped) = base.strip_suffix(')') {
                format!("{stripped}, {})", args.join(", "))
            } else {
                format!("{base}({})", args.join(", "))
            }
        };
        let alt = &p.alts[0];
        // A name written without a kind: a `plugin:name` is a plugin's skill (no tool's name
        // has a `:`).
        let skill = alt.kind == Some(EventKind::Skill)
            || (alt.kind.is_none() && alt.glob.contains(':') && !alt.glob.starts_with("mcp__"));
        let tool = match alt.kind {
            Some(EventKind::Command) => format!("/{}", alt.glob),
            // Called as the Skill tool, its input beside the skill's name.
            _ if skill => {
                let mut parts = vec![format!("skill=\"{}\"", alt.glob)];
                parts.extend(alt.input.iter().map(|(ptr, m)| {
                    let key = ptr.trim_start_matches('/').replace('/', ".");
                    match m {
                        InputMatcher::Glob(g) => format!("{key}=\"{g}\""),
                        InputMatcher::Equals(v) => format!("{key}={v}"),
                        InputMatcher::Present => format!("{key}=…"),
                    }
                }));
                parts.extend(extra.iter().map(|(k, v)| format!("{k}={v}")));
                format!("Skill({})", parts.join(", "))
            }
            _ => {
                let name = match pattern::any_server_tool(&alt.glob) {
                    Some(tool) => tool.to_string(),
                    None => claude_tool_name(&alt.glob),
                };
                match call.find('(') {
                    Some(i) => format!("{name}{}", &call[i..]),
                    None => name,
                }
            }
        };
        // A step the sequence words (a workflow's `git clone <url> <dest>`) is named so, not by
        // the globs that recognise it.
        let (call, tool) = match self.worded_call(ti) {
            Some(worded) => (worded.to_string(), worded.to_string()),
            None => (call, tool),
        };
        let leads_to = t
            .targets
            .first()
            .map(|s| self.chart.state(*s).label.clone())
            .unwrap_or_else(|| self.chart.state(t.source).label.clone());
        Some(NextStep {
            call,
            tool,
            leads_to,
            blocked_by: None,
            transition: ti,
        })
    }

    /// Event transitions that could fire now (guards hold, input matchers aside), in
    /// selection order, deduplicated by call.
    pub fn enabled_calls(&self, snap: &Snapshot) -> Vec<NextStep> {
        let mut out: Vec<NextStep> = Vec::new();
        for atomic in self.atomic_active(snap) {
            for ti in self.transitions_for(atomic) {
                let t = &self.chart.transitions[ti];
                if !matches!(t.trigger, Trigger::Event(_)) {
                    continue;
                }
                if !t
                    .guard
                    .as_ref()
                    .is_none_or(|g| guard::eval_ignoring_input(g, snap))
                {
                    continue;
                }
                // A bare wildcard (`*`: "anything goes here") names no call to suggest.
                if let Some(step) = self.describe_transition(ti)
                    && !step.call.chars().all(|c| matches!(c, '*' | '?'))
                    && !out.iter().any(|o| o.call == step.call)
                {
                    out.push(step);
                }
            }
        }
        out
    }
}

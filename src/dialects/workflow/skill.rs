//! The skill that runs a workflow, and the skills an ending's recovery names.
//!
//! Seed 003 keeps each workflow beside the skill that runs it (`skills/<skill>/workflow.yaml`,
//! loaded by its SKILL.md), so the agent's first call is that skill, and an ending's recovery
//! is a skill to run next (`recovery: "hiivmind-corpus-init"`; "IF ending.recovery: suggest
//! running ending.recovery skill").
//!
//! - The workflow's skill is `skill:` when the file names it, else its `name` in kebab case
//!   (`add_source` → `add-source`, skill names' own spelling). Called as a skill
//!   (`Skill(skill="plugin:add-source")`, the bare name when the file gives none) or as a slash
//!   command, it is neutral while the workflow runs, and from any ending it starts the workflow
//!   again, its flags and variables back to `initial_state`.
//! - The skills and commands an ending's recovery names are allowed at that ending: the whole
//!   recovery when it is one name, a `/command`, a `Skill(skill="…")`, or a kebab-case or
//!   `plugin:name` word after "run", "invoke", "use" or "call" (`then run
//!   hiivmind-corpus-add-source again`). Naming the workflow's own skill restarts it there.

use super::compile::Cx;
use super::schema::{Workflow, span_of};
use crate::dialects::LoadError;
use crate::engine::build::ChartBuilder;
use crate::engine::event::EventKind;
use crate::engine::ir::{Action, Guard, Span, StateId, StateKind, Transition, Trigger};
use crate::engine::pattern::{Alt, Pattern};

/// The checkpoint a workflow takes as it starts, which a restart rolls back to.
pub const START_CHECKPOINT: &str = "workflow start";

/// Longest skill or command name taken from a file or a recovery text.
const MAX_NAME: usize = 128;

/// The workflow's skill: `skill:` as written, else the name in kebab case.
pub fn own(cx: &Cx, wf: &Workflow, name: &str) -> Result<String, LoadError> {
    match &wf.skill {
        Some(s) => {
            let v = s.value.trim().trim_start_matches('/');
            if !is_name(v) {
                return Err(cx.err(
                    span_of(s),
                    format!(
                        "`skill` must be a skill's name (`add-source`, or `plugin:add-source`), got `{}`",
                        s.value
                    ),
                ));
            }
            Ok(v.to_string())
        }
        None => Ok(name.trim().replace(['_', ' '], "-").to_lowercase()),
    }
}

/// A skill or command name: letters, digits, `-`, `_`, `.`, and one `plugin:` prefix.
fn is_name(s: &str) -> bool {
    let mut parts = s.split(':');
    let ok = |p: &str| {
        p.chars().next().is_some_and(|c| c.is_ascii_alphanumeric())
            && p.chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
            && !p.ends_with('.')
    };
    s.len() <= MAX_NAME
        && parts.next().is_some_and(ok)
        && parts.next().is_none_or(ok)
        && parts.next().is_none()
}

/// The calls that run skill `name`: `Skill(skill=…)` or `/…`, with its plugin's prefix or, as
/// a skill installed on its own, without; a bare name from any plugin.
pub fn pattern_for(name: &str) -> Pattern {
    let names: Vec<String> = match name.split_once(':') {
        Some((_, bare)) => vec![name.to_string(), bare.to_string()],
        None => vec![name.to_string(), format!("*:{name}")],
    };
    let alts = names
        .iter()
        .flat_map(|n| {
            [EventKind::Skill, EventKind::Command].map(|kind| Alt {
                kind: Some(kind),
                glob: n.clone(),
                input: Vec::new(),
            })
        })
        .collect::<Vec<_>>();
    // Skill alternatives first: the pattern reads as its first one (`Skill(skill="…")`).
    let (mut skills, commands): (Vec<Alt>, Vec<Alt>) = alts
        .into_iter()
        .partition(|a| a.kind == Some(EventKind::Skill));
    skills.extend(commands);
    Pattern { alts: skills }
}

/// The skills and commands a recovery text names (see the module's rules), in order, once each.
pub fn named_in(recovery: &str) -> Vec<String> {
    let text = recovery.trim();
    let whole = text.trim_start_matches('/');
    if is_name(whole) {
        return vec![whole.to_string()];
    }
    let mut out: Vec<String> = Vec::new();
    let mut add = |n: &str| {
        if is_name(n) && !out.iter().any(|o| o == n) {
            out.push(n.to_string());
        }
    };
    let mut rest = text;
    while let Some(i) = rest.find("skill=\"") {
        let after = &rest[i + 7..];
        let end = after.find('"').unwrap_or(after.len());
        add(&after[..end]);
        rest = &after[end..];
    }
    let clean = |w: &str| {
        w.trim_matches(|c: char| ",.;!?()'\"`".contains(c))
            .to_string()
    };
    let words: Vec<String> = text.split_whitespace().map(clean).collect();
    let mut after_verb = false;
    for w in &words {
        if let Some(cmd) = w.strip_prefix('/') {
            add(cmd);
        } else if after_verb && (w.contains('-') || w.contains(':')) {
            add(w);
        }
        let lower = w.to_lowercase();
        after_verb = match lower.as_str() {
            "run" | "rerun" | "invoke" | "use" | "call" => true,
            // "run the hiivmind-corpus-init skill"
            "the" | "skill" | "command" => after_verb,
            _ => false,
        };
    }
    out
}

/// Wire the workflow's skill and its endings' recovery calls into the chart: the skill is
/// neutral, restarts the workflow from its endings (a transition on the root, which progress
/// and recovery do not follow, so the endings stay the end of every path), and what a
/// recovery names is allowed at its ending.
pub fn wire(
    cx: &Cx,
    wf: &Workflow,
    b: &mut ChartBuilder,
    skill: &str,
    first: StateId,
) -> Result<(), LoadError> {
    let own = pattern_for(skill);
    let bare = |n: &str| n.rsplit(':').next().unwrap_or(n).to_string();
    // Neutral is a gate's answer, and only tool calls are gated (a slash command is a prompt).
    let skill_calls = Pattern {
        alts: own
            .alts
            .iter()
            .filter(|a| a.kind == Some(EventKind::Skill))
            .cloned()
            .collect(),
    };
    b.chart_mut().neutral.push(skill_calls);
    b.state_mut(first).on_entry.insert(
        0,
        Action::Checkpoint {
            name: START_CHECKPOINT.into(),
        },
    );
    let mut endings = Vec::new();
    for (key, ending) in &wf.endings.0 {
        let id = cx.target(key)?;
        endings.push(Guard::In { state: id });
        let at = span_of(key);
        for name in ending
            .value
            .recovery
            .as_deref()
            .map(named_in)
            .unwrap_or_default()
        {
            if bare(&name) == bare(skill) {
                continue;
            }
            allow_at(b, id, &name, at);
        }
    }
    // The synthesized ending of failed entry preconditions, when the file has none of its own.
    if let Some(failed) = b
        .chart()
        .states
        .iter()
        .find(|s| s.name == super::compile::ENTRY_FAILED && s.is_final())
        .map(|s| s.id)
        && !endings.contains(&Guard::In { state: failed })
    {
        endings.push(Guard::In { state: failed });
    }
    if endings.is_empty() {
        return Ok(());
    }
    b.add_transition(Transition {
        source: StateId::ROOT,
        targets: vec![first],
        trigger: Trigger::Event(own),
        guard: Some(Guard::Any { of: endings }),
        actions: vec![Action::Rollback {
            name: START_CHECKPOINT.into(),
        }],
        label: Some(format!("{skill}: start again")),
        span: None,
    });
    Ok(())
}

/// `name` is neutral at ending `id`: a targetless transition, as a self-loop is.
fn allow_at(b: &mut ChartBuilder, id: StateId, name: &str, at: Span) {
    debug_assert!(matches!(b.state(id).kind, StateKind::Final { .. }));
    b.add_transition(Transition {
        source: id,
        targets: Vec::new(),
        trigger: Trigger::Event(pattern_for(name)),
        guard: None,
        actions: Vec::new(),
        label: Some(format!("recovery: {name}")),
        span: Some(at),
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Event;
    use serde_json::Value;
    use std::collections::BTreeMap;

    #[test]
    fn a_recovery_names_the_skills_it_says_to_run() {
        let cases: &[(&str, &[&str])] = &[
            ("hiivmind-corpus-init", &["hiivmind-corpus-init"]),
            ("/hiivmind-corpus:init", &["hiivmind-corpus:init"]),
            (
                "Check the URL and your git access, then run hiivmind-corpus-add-source again",
                &["hiivmind-corpus-add-source"],
            ),
            (
                "Run the hiivmind-corpus-init skill, or /hiivmind-corpus:discover.",
                &["hiivmind-corpus-init", "hiivmind-corpus:discover"],
            ),
            (
                "Call Skill(skill=\"corpus:build\") and then use corpus:build",
                &["corpus:build"],
            ),
            // Paths, prose and ordinary hyphenated words are not skills.
            ("Check that data/llms/ is writable, then try again", &[]),
            (
                "Fix data/config.yaml (is it valid YAML?), then re-run it",
                &[],
            ),
            ("Run it again when the read-only lock is gone", &[]),
            ("", &[]),
        ];
        for (text, want) in cases {
            assert_eq!(named_in(text), *want, "{text}");
        }
    }

    #[test]
    fn a_huge_or_hostile_recovery_names_only_what_fits() {
        let huge = format!("run {} then run ok-skill", "x-".repeat(500_000));
        assert_eq!(
            named_in(&huge),
            ["ok-skill"],
            "a name past the limit is none"
        );
        let many = "run a-b ".repeat(10_000);
        assert_eq!(named_in(&many), ["a-b"], "each name once");
        for hostile in [
            "skill=\"",
            "Skill(skill=\"a-b",
            "/",
            "run /",
            "\u{202e}run a-b",
        ] {
            let _ = named_in(hostile);
        }
        assert_eq!(named_in("run \u{1b}[31ma-b"), Vec::<String>::new());
    }

    #[test]
    fn names_are_plain_or_one_plugin_deep() {
        for ok in ["add-source", "hiivmind-corpus:add-source", "a.b_c", "x1"] {
            assert!(is_name(ok), "{ok}");
        }
        for bad in [
            "", "a:b:c", "-a", "a.", "a b", "a/b", "*", "a*", ":a", "a:", "é",
        ] {
            assert!(!is_name(bad), "{bad}");
        }
        assert!(!is_name(&"a".repeat(MAX_NAME + 1)));
    }

    #[test]
    fn a_skill_is_called_with_or_without_its_plugin() {
        let none = BTreeMap::new();
        let skill = |n: &str| Event::tool("Skill", serde_json::json!({ "skill": n }));
        let p = pattern_for("corpus:add-source");
        assert_eq!(p.describe_call(), "Skill(skill=\"corpus:add-source\")");
        assert!(p.matches(&skill("corpus:add-source"), &none));
        assert!(p.matches(&skill("add-source"), &none));
        assert!(!p.matches(&skill("other:add-source"), &none));
        assert!(!p.matches(&skill("corpus:init"), &none));
        let bare = pattern_for("add-source");
        assert!(bare.matches(&skill("any-plugin:add-source"), &none));
        assert!(!bare.matches(&skill("add-source-2"), &none));
        assert!(!bare.matches(&Event::tool("Bash", Value::Null), &none));
    }
}

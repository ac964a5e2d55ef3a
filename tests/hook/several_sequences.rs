//! Several sequences at once, through the real hook: each is stepped on its own and the
//! PreToolUse answer is the most restrictive (deny beats ask beats allow), its reason naming
//! the sequence it came from. hope asks the user after three denied ExitPlanMode attempts;
//! odyssean_anchor denies it until bound; seaam_organ_lifecycle only observes.

use crate::support::hook as hook_common;

use hook_common::{Sandbox, payload};
use serde_json::{Value, json};

/// An ExitPlanMode attempt (the plan reworded each time, as an agent does).
fn exit_plan(s: &Sandbox, session: &str, attempt: u32) -> (String, String) {
    let call = json!({
        "tool_name": "ExitPlanMode",
        "tool_input": { "plan": format!("Plan, draft {attempt}") },
        "tool_use_id": format!("toolu_{attempt:02}"),
    });
    let r = s.hook(&[], payload("PreToolUse", session, call));
    let v: Value = r.json();
    let out = &v["hookSpecificOutput"];
    (
        out["permissionDecision"].as_str().unwrap_or("").to_string(),
        out["permissionDecisionReason"]
            .as_str()
            .unwrap_or("")
            .to_string(),
    )
}

#[test]
fn ask_beats_allow_and_names_the_sequence_that_asks() {
    let s = Sandbox::new();
    s.write_config("sequences = [\"seaam_organ_lifecycle\", \"hope\"]\n");
    for attempt in 1..=3 {
        let (decision, reason) = exit_plan(&s, "s-ask", attempt);
        assert_eq!(decision, "deny", "attempt {attempt}");
        assert!(reason.starts_with("seed [hope]: "), "{reason}");
    }
    let (decision, reason) = exit_plan(&s, "s-ask", 4);
    assert_eq!(decision, "ask", "seaam allows, hope asks: ask");
    assert!(
        reason.starts_with("seed [hope]: ") && reason.contains("ask the user"),
        "{reason}"
    );
}

#[test]
fn deny_beats_ask_whichever_sequence_comes_first() {
    for config in [
        "sequences = [\"hope\", \"odyssean_anchor\"]\n",
        "sequences = [\"odyssean_anchor\", \"hope\"]\n",
    ] {
        let s = Sandbox::new();
        s.write_config(config);
        for attempt in 1..=3 {
            assert_eq!(exit_plan(&s, "s-deny", attempt).0, "deny", "{config}");
        }
        // hope asks now; odyssean_anchor still denies (its breaker keeps denying).
        let (decision, reason) = exit_plan(&s, "s-deny", 4);
        assert_eq!(decision, "deny", "{config}");
        assert!(
            reason.starts_with("seed [odyssean_anchor]: "),
            "{config}: {reason}"
        );
        assert!(
            reason.contains("odyssean_anchor(stage=\"init\""),
            "{reason}"
        );
    }
}

#[test]
fn allow_only_when_every_sequence_allows() {
    let s = Sandbox::new();
    s.write_config("sequences = [\"seaam_organ_lifecycle\", \"odyssean_anchor\"]\n");
    let read = json!({ "tool_name": "Read", "tool_input": { "file_path": "README.md" } });
    let r = s.hook(&[], payload("PreToolUse", "s-allow", read));
    assert_eq!(r.stdout.trim(), "", "allowed by both: no answer at all");
    let (decision, reason) = exit_plan(&s, "s-allow", 1);
    assert_eq!(decision, "deny");
    assert!(reason.starts_with("seed [odyssean_anchor]: "), "{reason}");
}

#[test]
fn every_sequence_that_refuses_a_call_says_why() {
    let s = Sandbox::new();
    s.write_config("sequences = [\"compound_intelligence\", \"odyssean_anchor\"]\n");
    let bash = json!({ "tool_name": "Bash", "tool_input": { "command": "ls" } });
    let r = s.hook(&[], payload("PreToolUse", "s-both", bash));
    let v: Value = r.json();
    let out = &v["hookSpecificOutput"];
    assert_eq!(out["permissionDecision"], "deny");
    let reason = out["permissionDecisionReason"].as_str().unwrap_or("");
    let lines: Vec<&str> = reason.lines().collect();
    assert_eq!(lines.len(), 2, "{reason}");
    assert!(
        lines[0].starts_with("seed [compound_intelligence]: "),
        "{reason}"
    );
    assert!(lines[0].contains("mcp__seed__who_am_i"), "{reason}");
    assert!(lines[1].starts_with("seed [odyssean_anchor]: "), "{reason}");
    assert!(
        lines[1].contains("odyssean_anchor(stage=\"init\""),
        "{reason}"
    );
    // seed's own first step is refused by neither: the way out of the conflict starts there.
    let who = json!({ "tool_name": "mcp__seed__who_am_i", "tool_input": {} });
    let r = s.hook(&[], payload("PreToolUse", "s-both", who));
    assert_eq!(r.stdout.trim(), "", "{}", r.stdout);
}

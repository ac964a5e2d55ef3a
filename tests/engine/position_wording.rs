//! Where the agent is, worded the same by every face (the CLI's status and recovery, the
//! guidance line injected into prompts, the dashboard's statechart title): a railroad's step,
//! named after the call that led to it, is the *last call* — "step: X · next: Y" read as "now
//! do X" — and any other step is where the agent is *at*.

use crate::support::mermaid as mermaid_common;

use mermaid_common::{Walk, tool};
use seed::engine::VerdictKind;
use seed::engine::wording::position;
use seed::report::{recovery_text, status_json, status_text};
use serde_json::json;

#[test]
fn a_railroad_step_is_the_last_call_in_every_face() {
    let mut w = Walk::new("compound_intelligence");
    let st = w.m.status(&w.snap);
    assert!(!st.step_is_call, "nothing called yet");
    assert!(
        w.m.guidance_line(&w.snap).starts_with(
            "[SEED SEQUENCE] \"compound_intelligence\" · at: start · next: mcp__seed__who_am_i"
        ),
        "{}",
        w.m.guidance_line(&w.snap)
    );
    w.call(
        &tool("mcp__seed__who_am_i", json!({})),
        VerdictKind::Advance,
    );
    w.call(
        &tool("mcp__seed__what_do_i_do", json!({})),
        VerdictKind::Advance,
    );
    let st = w.m.status(&w.snap);
    assert!(st.step_is_call);
    let said = position(&st.step, st.step_is_call);
    assert_eq!(said, "last call: seed.what_do_i_do");
    let line = w.m.guidance_line(&w.snap);
    assert!(
        line.contains(" · last call: seed.what_do_i_do · next: mcp__starlog__check · "),
        "{line}"
    );
    let text = status_text(&st);
    assert!(text.contains("\nlast call: seed.what_do_i_do\n"), "{text}");
    assert!(!text.contains("step:"), "{text}");
    assert!(
        recovery_text(&st)
            .starts_with("compound_intelligence — last call: seed.what_do_i_do (50% done)\n"),
        "{}",
        recovery_text(&st)
    );
    assert_eq!(status_json(&st)["position"], said);
}

#[test]
fn any_other_step_is_where_the_agent_is_at() {
    let w = Walk::new("odyssean_anchor");
    let st = w.m.status(&w.snap);
    assert!(!st.step_is_call);
    let said = position(&st.step, false);
    assert!(said.starts_with("at: "), "{said}");
    assert!(
        w.m.guidance_line(&w.snap)
            .contains(&format!(" · {said} · "))
    );
    let text = status_text(&st);
    assert!(
        text.contains(&format!("\nat:      {}\n", st.step)),
        "{text}"
    );
    assert!(recovery_text(&st).starts_with(&format!("odyssean_anchor — {said} (")));
}

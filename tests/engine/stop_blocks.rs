//! `stop.max_blocks = N`: the agent cannot stop an unfinished sequence up to N times per prompt.
//! seed counts its own blocks since the last prompt of the user's (a typed prompt or a
//! `/command`; a system notification is none), blocks while the count is below N — whatever
//! `stop_hook_active` says, since Claude Code keeps it true for the rest of a turn after one
//! block, even after more calls — and never at N, so a turn always ends.

use seed::dialects::load_text;
use seed::engine::{Decision, Event, Facts, Machine, Phase, Snapshot};
use serde_json::json;

fn held(max_blocks: u32) -> (Machine, Snapshot) {
    let text = format!(
        r#"{{
  "name": "held",
  "enforcement": "enforce",
  "off_path": "deny",
  "stop": {{ "block_until_final": true, "max_blocks": {max_blocks} }},
  "start": ["Write"],
  "tool_transitions": {{
    "Write": {{ "next_allowed": ["Bash"] }},
    "Bash": {{ "next_allowed": ["Bash", "Read"] }}
  }}
}}"#
    );
    let m = Machine::new(
        load_text("held.json", &text, &|_| None)
            .expect("loads")
            .chart,
    );
    let snap = m.start(&Facts::new());
    (m, snap)
}

fn stop(m: &Machine, snap: &mut Snapshot, hook_active: bool) -> Decision {
    let e = Event::lifecycle("Stop").with_input(json!({ "stop_hook_active": hook_active }));
    m.step(snap, Phase::Stop, &e, &Facts::new())
        .verdict
        .expect("a stop verdict")
        .decision
}

fn advance(m: &Machine, snap: &mut Snapshot, e: Event) {
    m.step(snap, Phase::Advance, &e, &Facts::new());
}

fn call(m: &Machine, snap: &mut Snapshot, tool: &str) {
    advance(m, snap, Event::tool(tool, json!({})));
}

#[test]
fn blocks_n_times_per_prompt_although_claude_code_says_stop_hook_active() {
    let (m, mut snap) = held(2);
    advance(&m, &mut snap, Event::prompt("write the note"));
    call(&m, &mut snap, "Write");
    // Claude Code: the first Stop of the turn, then `stop_hook_active` for the rest of it,
    // even after the agent made more calls (and moved the sequence).
    assert_eq!(stop(&m, &mut snap, false), Decision::Block);
    call(&m, &mut snap, "Bash");
    assert_eq!(stop(&m, &mut snap, true), Decision::Block);
    assert_eq!(stop(&m, &mut snap, true), Decision::Allow, "never at N");
    assert_eq!(stop(&m, &mut snap, true), Decision::Allow);
    // The user's next prompt starts the count again.
    advance(&m, &mut snap, Event::prompt("anything else?"));
    assert_eq!(stop(&m, &mut snap, false), Decision::Block);
    assert_eq!(stop(&m, &mut snap, true), Decision::Block);
    assert_eq!(stop(&m, &mut snap, true), Decision::Allow);
    // So does a /command.
    advance(&m, &mut snap, Event::prompt("/review now"));
    assert_eq!(stop(&m, &mut snap, true), Decision::Block);
}

#[test]
fn progress_between_stops_does_not_renew_the_blocks() {
    // A looping step moves the sequence on every call: were progress to renew the count, the
    // agent could be held for ever (here even without `stop_hook_active` to stop it).
    let (m, mut snap) = held(3);
    advance(&m, &mut snap, Event::prompt("go"));
    call(&m, &mut snap, "Write");
    let mut blocks = 0;
    for _ in 0..20 {
        call(&m, &mut snap, "Bash");
        if stop(&m, &mut snap, false) == Decision::Block {
            blocks += 1;
        }
    }
    assert_eq!(blocks, 3);
}

#[test]
fn a_notification_is_not_a_prompt_and_renews_nothing() {
    let (m, mut snap) = held(1);
    advance(&m, &mut snap, Event::prompt("go"));
    assert_eq!(stop(&m, &mut snap, false), Decision::Block);
    assert_eq!(stop(&m, &mut snap, true), Decision::Allow);
    advance(
        &m,
        &mut snap,
        Event::prompt("<task-notification>\n<status>completed</status>\n</task-notification>"),
    );
    assert_eq!(stop(&m, &mut snap, false), Decision::Allow);
}

#[test]
fn zero_never_blocks_and_a_finished_sequence_never_is_held() {
    let (m, mut snap) = held(0);
    advance(&m, &mut snap, Event::prompt("go"));
    assert_eq!(stop(&m, &mut snap, false), Decision::Allow);

    let (m, mut snap) = held(2);
    advance(&m, &mut snap, Event::prompt("go"));
    for t in ["Write", "Bash", "Read"] {
        call(&m, &mut snap, t);
    }
    assert_eq!(stop(&m, &mut snap, false), Decision::Allow, "done");
}

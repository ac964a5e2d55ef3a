//! A call the sequence was waiting for that failed is kept, with its error, until the
//! configuration moves: recovery names it first. A failure the sequence has an edge for moves
//! it instead (and is not kept), and one of a call it was not waiting for is not its business.

use crate::support::mermaid as mermaid_common;

use mermaid_common::{Walk, tool};
use seed::engine::{Event, VerdictKind};
use serde_json::json;

fn failed(name: &str, input: serde_json::Value, error: &str) -> Event {
    Event::tool_failure(name, input, Some(error))
}

#[test]
fn the_failure_of_the_expected_call_is_recovery_s_first_word_until_the_sequence_moves() {
    let mut w = Walk::new("compound_intelligence");
    w.call(
        &tool("mcp__seed__who_am_i", json!({})),
        VerdictKind::Advance,
    );
    w.advance(&failed(
        "mcp__seed__what_do_i_do",
        json!({}),
        "connection reset\n",
    ));
    let st = w.m.status(&w.snap);
    let f = st.failed_call.clone().expect("kept");
    assert_eq!(
        (f.call.as_str(), f.error.as_deref()),
        ("mcp__seed__what_do_i_do", Some("connection reset"))
    );
    assert_eq!(
        st.recovery.suggestions[0],
        "mcp__seed__what_do_i_do failed: connection reset. Make it work (its MCP server `seed` must be configured and connected: `claude mcp list`), then call it again."
    );
    // A refused call is told the failure rather than a bare "call it".
    let v = w.gate(&tool("WebFetch", json!({"url": "https://example.com"})));
    assert_eq!(v.decision, seed::engine::Decision::Deny);
    assert!(
        v.reason.ends_with(&st.recovery.suggestions[0]),
        "{}",
        v.reason
    );
    assert!(!v.reason.contains("Next: call"), "{}", v.reason);
    // A neutral call in between changes nothing.
    w.call(
        &tool("Read", json!({"file_path": "a"})),
        VerdictKind::Neutral,
    );
    assert!(w.m.status(&w.snap).failed_call.is_some());
    // Through at last: the sequence moves, the failure is history.
    w.call(
        &tool("mcp__seed__what_do_i_do", json!({})),
        VerdictKind::Advance,
    );
    let st = w.m.status(&w.snap);
    assert_eq!(st.failed_call, None);
    assert!(!st.recovery.suggestions[0].contains("failed"));
    // The error is cut where the event is made.
    let long = failed("mcp__starlog__check", json!({}), &"e".repeat(10_000));
    assert_eq!(long.response.as_str().map(|e| e.chars().count()), Some(300));
    assert_eq!(
        Event::tool_failure("Bash", json!({}), Some("   ")).response,
        serde_json::Value::Null
    );
}

#[test]
fn a_failure_the_sequence_has_an_edge_for_moves_it_and_is_not_kept() {
    let mut w = Walk::new("tdd");
    let run = json!({"command": "cargo test"});
    w.advance(&failed("Bash", run.clone(), "Exit code 101"));
    assert_eq!(w.at(), ["red"]);
    assert_eq!(w.m.status(&w.snap).failed_call, None);
    // A call nobody waits for that fails is not kept either.
    let mut w = Walk::new("compound_intelligence");
    w.advance(&failed(
        "Write",
        json!({"file_path": "x"}),
        "denied by the OS",
    ));
    assert_eq!(w.m.status(&w.snap).failed_call, None);
}

//! Recovery paths come from a shortest-path search over the chart: among equally short paths
//! the agent's own calls win over steps that wait for a prompt, and the path is always a
//! path (no state twice), whatever cycles the chart has.

use seed::dialects::load_text;
use seed::engine::{Event, Facts, Machine, Phase};

fn none(_: &str) -> Option<String> {
    None
}

fn machine(diagram: &str) -> Machine {
    Machine::new(load_text("chart.mmd", diagram, &none).expect("loads").chart)
}

#[test]
fn an_eventless_cycle_beside_the_path_does_not_loop_the_recovery() {
    // X and Y flip on flags without an event; the only way on is Foo from X.
    let m = machine(
        "stateDiagram-v2
    [*] --> S
    S --> X : prompt:*
    X --> Y : [flags.a]
    Y --> X : [flags.b]
    X --> Z : tool:Foo
    Z --> [*]
",
    );
    let facts = Facts::new();
    let mut snap = m.start(&facts);
    let ev = Event::tool("Foo", serde_json::Value::Null);
    let report = m.step(&mut snap, Phase::Gate, &ev, &facts);
    let verdict = report.verdict.expect("a gate gives a verdict");
    let rec = m.recovery(&snap, Some(&ev));
    let path = rec.path_to_denied.expect("Foo is reachable");
    assert_eq!(
        path.iter().map(|s| s.tool.as_str()).collect::<Vec<_>>(),
        ["Foo"],
        "the prompt is waited for, then Foo: {verdict:?}"
    );
    assert_eq!(
        m.status(&snap).progress.steps_remaining,
        Some(2),
        "the prompt, then Foo"
    );
    // Foo is not legal before the prompt: there is no call to suggest yet.
    assert_eq!(m.status(&snap).next.map(|n| n.tool), None);
}

#[test]
fn equally_short_the_agents_own_call_beats_waiting_for_a_prompt() {
    let m = machine(
        "stateDiagram-v2
    [*] --> A
    A --> B : prompt:*
    A --> B : tool:Bar
    B --> [*] : tool:Done
",
    );
    let snap = m.start(&Facts::new());
    let next = m.recovery(&snap, None).next;
    assert_eq!(
        next.first().map(|n| n.tool.as_str()),
        Some("Bar"),
        "{next:?}"
    );
}

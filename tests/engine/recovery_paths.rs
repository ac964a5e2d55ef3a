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

#[test]
fn next_heads_for_a_success_ending_even_when_an_error_ending_is_closer() {
    // Asking first: "Stop" ends in error at once; "Go" needs a build before the success ending.
    let yaml = "name: t
start_node: check
nodes:
  check:
    type: action
    actions:
      - type: run_command
        command: \"make lint\"
    on_success: ask
  ask:
    type: user_prompt
    prompt:
      question: \"Go on?\"
      header: \"Go\"
      options:
        - id: go
          label: \"Go\"
        - id: stop
          label: \"Stop\"
    on_response:
      go:
        next_node: build
      stop:
        next_node: failed
  build:
    type: action
    actions:
      - type: run_command
        command: \"make build\"
    on_success: done
endings:
  done:
    type: success
    message: ok
  failed:
    type: error
    message: stopped
";
    let m = Machine::new(load_text("t.yaml", yaml, &none).expect("loads").chart);
    let snap = m.start(&Facts::new());
    assert_eq!(
        m.route_to_ending(&snap),
        [
            "Bash(command=\"make lint\")",
            "AskUserQuestion",
            "Bash(command=\"make build\")"
        ],
        "the way to `done`, not the shorter one to `failed`"
    );
    assert_eq!(m.progress(&snap).steps_remaining, Some(3));
    // With no success ending reachable, the error ending is still a way out.
    let mut only_error = m.chart.clone();
    let build = only_error.find("build").expect("build node");
    only_error.transitions.retain(|t| t.source != build);
    let m = Machine::new(only_error);
    let snap = m.start(&Facts::new());
    assert_eq!(
        m.route_to_ending(&snap),
        ["Bash(command=\"make lint\")", "AskUserQuestion"]
    );
}

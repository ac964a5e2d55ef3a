//! The MCP servers a sequence's steps call, and the words for them when the host tells the
//! engine what Claude Code's configuration provides: a tool named on any server is spelled on
//! the server that provides it, and a step whose server is missing says so with how to add it
//! (Claude Code answers such a call "No such tool available" without any hook).

use std::collections::BTreeSet;

use seed::dialects;
use seed::engine::servers::Hosted;
use seed::engine::{Event, Facts, Machine, Phase};
use serde_json::json;

fn machine(name: &str) -> Machine {
    Machine::new(
        dialects::builtin(name)
            .expect("built-in")
            .expect("loads")
            .chart,
    )
}

fn hosted(servers: &[&str]) -> Hosted {
    Hosted {
        servers: servers
            .iter()
            .map(|s| s.to_string())
            .collect::<BTreeSet<_>>(),
        ..Hosted::default()
    }
}

/// The reason a refused Bash call is given at the start.
fn refusal(m: &Machine) -> String {
    let facts = Facts::new();
    let mut snap = m.start(&facts);
    let ev = Event::tool("Bash", json!({"command": "ls"}));
    let report = m.step(&mut snap, Phase::Gate, &ev, &facts);
    report.verdict.expect("a verdict").reason
}

fn guidance(m: &Machine) -> String {
    m.guidance_line(&m.start(&Facts::new()))
}

#[test]
fn the_needs_are_each_server_with_its_tools_in_the_order_named() {
    let m = machine("compound_intelligence");
    let needs: Vec<(Option<&str>, usize)> = m
        .server_needs()
        .iter()
        .map(|n| (n.server.as_deref(), n.tools.len()))
        .collect();
    assert_eq!(needs[0], (Some("seed"), 2));
    assert_eq!(m.server_needs()[0].tools, ["who_am_i", "what_do_i_do"]);
    assert!(needs.iter().any(|n| n.0 == Some("starlog")), "{needs:?}");
    let anchor = machine("odyssean_anchor");
    let any = anchor.server_needs().iter().find(|n| n.server.is_none());
    assert_eq!(
        any.map(|n| n.tools.clone()),
        Some(vec!["odyssean_anchor".to_string()])
    );
    assert!(machine("tdd").server_needs().is_empty());
}

#[test]
fn a_tool_on_any_server_is_named_on_the_server_the_configuration_provides() {
    let mut m = machine("odyssean_anchor");
    assert!(refusal(&m).contains("odyssean_anchor(stage=\"init\""));
    assert!(
        !refusal(&m).contains("mcp__"),
        "nothing known: the bare name"
    );
    m.set_hosted(hosted(&["seed", "anchor"]));
    let said = refusal(&m);
    assert!(
        said.contains("First call mcp__anchor__odyssean_anchor(stage=\"init\")"),
        "{said}"
    );
    assert!(!said.contains(" odyssean_anchor("), "{said}");
}

#[test]
fn a_tool_on_any_server_with_no_server_to_provide_it_says_so() {
    let mut m = machine("odyssean_anchor");
    m.set_hosted(hosted(&["seed"]));
    let said = refusal(&m);
    assert!(
        said.contains("odyssean_anchor is a tool of an MCP server, and no server configured for this project is known to provide it"),
        "{said}"
    );
    // Two servers that might: seed cannot tell which, and does not guess.
    m.set_hosted(hosted(&["a", "b"]));
    let said = refusal(&m);
    assert!(!said.contains("no server configured"), "{said}");
    assert!(said.contains("odyssean_anchor(stage=\"init\")"), "{said}");
}

#[test]
fn a_step_whose_server_is_missing_names_the_fix() {
    let mut m = machine("compound_intelligence");
    m.set_hosted(hosted(&["starlog"]));
    let said = refusal(&m);
    assert!(
        said.contains("mcp__seed__who_am_i cannot be called here: no MCP server \"seed\" is configured for this project (add it: seed install --mcp)."),
        "{said}"
    );
    assert!(
        guidance(&m).contains(
            "next: mcp__seed__who_am_i (no MCP server \"seed\" configured: seed install --mcp)"
        ),
        "{}",
        guidance(&m)
    );
    let rec = m.recovery(&m.start(&Facts::new()), None);
    assert!(
        rec.suggestions
            .iter()
            .any(|s| s.contains("no MCP server \"seed\"")),
        "{:?}",
        rec.suggestions
    );
    m.set_hosted(hosted(&["seed"]));
    assert!(!refusal(&m).contains("no MCP server"));
    assert!(!guidance(&m).contains("no MCP server"));
}

#[test]
fn nothing_known_of_the_configuration_changes_no_word() {
    let m = machine("compound_intelligence");
    let mut told = machine("compound_intelligence");
    told.set_hosted(hosted(&["seed", "starlog"]));
    assert_eq!(refusal(&m), refusal(&told));
    assert_eq!(guidance(&m), guidance(&told));
}

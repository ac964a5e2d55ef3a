//! seed's own MCP tools through Claude Code: deferred, loaded with ToolSearch, and read by
//! the model as the text the CLI prints.

use serde_json::json;

use crate::harness::{Scenario, Turn, replay};

#[test]
fn toolsearch_loads_seeds_tools_where_the_sequence_starts_with_them() {
    let Some(s) = Scenario::new() else { return };
    let run = s
        .sequence("compound_intelligence")
        .seed_mcp(&["--sequence", "compound_intelligence"])
        .prompt("Who am I?")
        .model([
            Turn::tool(
                "ToolSearch",
                json!({"query": "select:mcp__seed__who_am_i,mcp__seed__what_do_i_do"}),
            ),
            Turn::tool("mcp__seed__who_am_i", json!({})),
            Turn::tool("mcp__seed__what_do_i_do", json!({})),
            Turn::text("Ready."),
        ])
        .run();

    // The tools are deferred: not offered in the first request.
    assert!(
        !run.offered_tools()
            .iter()
            .any(|t| t.starts_with("mcp__seed__"))
    );
    let search = run.result(0);
    assert!(!search.is_error, "ToolSearch refused: {search:?}");
    for turn in [1, 2] {
        let r = run.result(turn);
        assert!(!r.is_error, "{r:?}");
    }
    let gates: Vec<_> = run
        .records_of("PreToolUse")
        .iter()
        .map(|r| {
            let d = r["verdict"]["decision"].as_str().unwrap_or_default();
            format!("{} {d}", r["event"]["name"].as_str().unwrap_or_default())
        })
        .collect();
    assert!(gates.iter().all(|g| g.ends_with(" allow")), "{gates:?}");
    let (_, status, _) = run.seed(&["status", "--session", &run.session_id()]);
    assert!(
        status.contains("starlog"),
        "two steps done, next starlog.check: {status}"
    );

    replay::agrees_with_live(&run, "compound_intelligence");
}

#[test]
fn the_model_reads_seeds_answers_as_the_text_the_cli_prints() {
    let Some(s) = Scenario::new() else { return };
    let run = s
        // Observe mode: nothing is refused, so this is about what the answers say.
        .file(".seed.toml", "enforcement = \"observe\"\n")
        .sequence("compound_intelligence")
        // As the hooks see the session: the recorded chart with the project's settings.
        .seed_mcp(&[])
        .prompt("Where are we?")
        .model([
            Turn::tool(
                "ToolSearch",
                json!({"query": "select:mcp__seed__who_am_i,mcp__seed__status"}),
            ),
            Turn::tool("mcp__seed__who_am_i", json!({})),
            Turn::tool("mcp__seed__status", json!({})),
            Turn::text("Noted."),
        ])
        .run();

    let who = run.result(1);
    assert!(!who.is_error, "{who:?}");
    assert!(
        !who.text.trim_start().starts_with('{'),
        "who_am_i reached the model as JSON: {}",
        who.text
    );
    let status = run.result(2);
    let (code, cli, err) = run.seed(&["status", "--session", &run.session_id()]);
    assert_eq!(code, 0, "{err}");
    // The CLI first names the session; the tool answers for the session calling it.
    let (head, cli) = cli
        .split_once("\n\n")
        .expect("the session's line, then the status");
    assert!(head.starts_with("session "), "{head}");
    assert_eq!(
        status.text.trim_end(),
        cli.trim_end(),
        "status as the CLI prints it"
    );
}

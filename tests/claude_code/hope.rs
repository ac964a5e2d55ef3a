//! hope's ExitPlanMode gate in interactive mode (print mode does not offer ExitPlanMode):
//! three refusals name the missing artifact, the fourth attempt goes to the user.

use serde_json::json;

use crate::harness::interactive::tmux_available;
use crate::harness::{Run, Scenario, Turn, replay};

fn exit_plan(draft: u32) -> Turn {
    Turn::tool(
        "ExitPlanMode",
        json!({"plan": format!("Plan, draft {draft}: migrate the schema, then the data")}),
    )
}

/// The session: ExitPlanMode loaded, then tried four times; the user declines the fourth.
fn exit_plan_chain() -> Option<Run> {
    let s = Scenario::new()?;
    if !tmux_available() {
        return None;
    }
    let run = s
        .sequence("hope")
        .allowed_tools("Bash,Read,ToolSearch")
        .prompt("Plan the migration.")
        .model([
            Turn::tool("ToolSearch", json!({"query": "select:ExitPlanMode"})),
            exit_plan(1),
            exit_plan(2),
            exit_plan(3),
            exit_plan(4),
        ])
        .run_interactive(&["--permission-mode", "plan"], &|term, screen| {
            // The fourth attempt is the user's to decide: "2. No", keep planning; that ends
            // the turn.
            if screen.contains("Exit plan mode?") {
                term.press(&["Down", "Enter"]);
            }
            screen.contains("Rejected Claude's plan")
        });
    Some(run)
}

#[test]
fn the_exit_plan_chain_refuses_three_times_then_asks_the_user() {
    let Some(run) = exit_plan_chain() else { return };

    for turn in 1..=3 {
        let r = run.result(turn);
        assert!(r.is_error, "draft {turn}: {r:?}");
        assert!(
            r.text.contains("The intent brief is missing"),
            "draft {turn}: {r:?}"
        );
    }
    let gates: Vec<_> = run
        .records_of("PreToolUse")
        .iter()
        .filter(|r| r["event"]["name"] == "ExitPlanMode")
        .map(|r| {
            r["verdict"]["decision"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        })
        .collect();
    assert_eq!(gates, ["deny", "deny", "deny", "ask"]);
    // Claude Code asked the user, who kept planning.
    assert!(
        run.stderr.contains("Rejected Claude's plan"),
        "{}",
        run.stderr
    );

    insta::with_settings!({filters => replay::FRAME_FILTERS.to_vec()}, {
        insta::assert_snapshot!(replay::last_frame(&run, "hope"));
    });
}

#[test]
fn the_exit_plan_chain_replays_as_it_ran() {
    let Some(run) = exit_plan_chain() else { return };
    replay::agrees_with_live(&run, "hope");
}

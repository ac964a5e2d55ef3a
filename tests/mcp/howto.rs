//! `how_do_i(component)`: a step, a tool or a server of the sequence, one of seed's own tools, or
//! a section of `how_do_i.seed`, in any spelling the agent may use; an unknown component lists
//! the ones the agent can ask about.

use crate::support::mcp as mcp_common;

use mcp_common::{Client, SESSION, hook_call, text};
use serde_json::{Value, json};

/// The answer the model reads and, asked again with `json: true`, its structured form.
fn ask(c: &mut Client, args: Value) -> (Value, Value) {
    let answer = c.call("how_do_i", args.clone());
    let structured = c.structured("how_do_i", args);
    (answer, structured)
}

#[test]
fn how_do_i_knows_a_component_by_tool_step_or_server_in_any_spelling() {
    let home = tempfile::tempdir().unwrap();
    let mut c = Client::start(home.path(), None);
    let how =
        |c: &mut Client, component: &str| c.call("how_do_i", json!({ "component": component }));

    let orient = text(&how(&mut c, "starlog.orient"));
    assert!(
        orient.starts_with("\"starlog.orient\" is a step of"),
        "{orient}"
    );
    for spelling in [
        "mcp__starlog__orient",
        "Starlog.Orient",
        "MCP__STARLOG__ORIENT",
    ] {
        assert_eq!(text(&how(&mut c, spelling)), orient, "{spelling}");
    }

    for server in ["starlog", "STARLOG", "mcp__starlog"] {
        let (answer, answer_st) = ask(&mut c, json!({ "component": server }));
        let steps = &answer_st["steps"];
        assert_eq!(
            steps.as_array().map(Vec::len),
            Some(3),
            "{server}: check, init_project, orient: {answer}"
        );
        for step in ["starlog.check", "starlog.orient", "starlog.init_project"] {
            assert!(
                text(&answer).contains(&format!("\"{step}\" is a step")),
                "{answer}"
            );
        }
    }
    let giint = how(&mut c, "giint");
    assert!(
        text(&giint).contains("\"giint.add_task\" is a step"),
        "{giint}"
    );
    assert!(!text(&giint).contains("starlog"), "{giint}");

    let (unknown, unknown_st) = ask(&mut c, json!({"component": "teleport"}));
    assert_eq!(unknown["result"]["isError"], false);
    assert_eq!(unknown_st["found"], false);
    let t = text(&unknown);
    assert!(
        t.starts_with("No component \"teleport\" in \"compound_intelligence\""),
        "{t}"
    );
    assert!(
        t.contains("- servers: carton, giint, heaven-subagent, seed, starlog, starship, waypoint"),
        "{t}"
    );
    assert!(t.contains("starlog.orient"), "known steps listed: {t}");
}

#[test]
fn how_do_i_sections_match_like_tools_and_group_under_their_server() {
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(home.path()).unwrap();
    std::fs::write(
        home.path().join("how_do_i.seed"),
        "## mcp__starlog__orient\nRead the registry first.\n\n## starlog.fly\nPick a flight.\n\n[carton]\nAdd concepts.\n",
    )
    .unwrap();
    let mut c = Client::start(home.path(), None);

    // The section leads, as written; the step of the sequence follows it.
    for spelling in ["starlog.orient", "mcp__starlog__orient", "STARLOG.ORIENT"] {
        let (answer, answer_st) = ask(&mut c, json!({ "component": spelling }));
        let t = text(&answer);
        assert!(
            t.starts_with("Read the registry first.\n\"starlog.orient\" is a step of"),
            "{spelling}: {t}"
        );
        assert_eq!(answer_st["source"], "file+sequence", "{spelling}");
    }
    let server = c.call("how_do_i", json!({"component": "starlog"}));
    let t = text(&server);
    assert!(t.contains("## starlog.fly\nPick a flight."), "{t}");
    assert!(t.contains("\"starlog.check\" is a step"), "{t}");
    let unknown = text(&c.call("how_do_i", json!({"component": "teleport"})));
    assert!(
        unknown.contains("- how_do_i.seed sections: mcp__starlog__orient, starlog.fly, carton"),
        "{unknown}"
    );
}

#[test]
fn how_do_i_says_which_source_answered() {
    let home = tempfile::tempdir().unwrap();
    hook_call(home.path(), "mcp__seed__who_am_i", "toolu_1");
    std::fs::write(
        home.path().join("how_do_i.seed"),
        "## deploy\nAsk first.\n\n## carton\nAdd concepts.\n\n## starlog.fly\nPick a flight.\n",
    )
    .unwrap();
    let mut c = Client::start(home.path(), Some(SESSION));
    let source = |c: &mut Client, component: &str| {
        c.structured("how_do_i", json!({ "component": component }))["source"].clone()
    };
    assert_eq!(source(&mut c, "deploy"), "file", "a section alone");
    assert_eq!(
        source(&mut c, "carton"),
        "file+session",
        "a section and the server's steps"
    );
    assert_eq!(source(&mut c, "starlog.orient"), "session", "a step alone");
    assert_eq!(
        source(&mut c, "starlog"),
        "file+session",
        "steps and a section"
    );
    assert_eq!(
        source(&mut c, "teleport"),
        "session",
        "the known components"
    );
}

/// A section never hides the other sources: `## starlog` comes with the starlog steps of the
/// sequence, and `## seed` or `## seed.status` with seed's own tools, each source listed.
#[test]
fn how_do_i_combines_a_section_with_the_steps_and_seeds_tools() {
    let home = tempfile::tempdir().unwrap();
    std::fs::write(
        home.path().join("how_do_i.seed"),
        "## starlog\nThe registry lives in ~/.starlog.\n\n## seed.status\nRun it after every step.\n",
    )
    .unwrap();
    let mut c = Client::start_with(
        home.path(),
        None,
        &[("SEED_SEQUENCE", Some("starlog_initialization"))],
    );
    let (starlog, starlog_st) = ask(&mut c, json!({"component": "starlog"}));
    let t = text(&starlog);
    assert!(
        t.starts_with("The registry lives in ~/.starlog.\n\"starlog\" in \"starlog_initialization\": 3 step(s)."),
        "{t}"
    );
    assert!(t.contains("\"starlog.orient\" is a step of"), "{t}");
    let st = &starlog_st;
    assert_eq!(st["source"], "file+sequence", "{st}");
    assert_eq!(st["sections"], json!(["starlog"]));
    assert_eq!(
        st["steps"],
        json!(["starlog.check", "starlog.orient", "starlog.init_project"])
    );

    let (status, status_st) = ask(&mut c, json!({"component": "mcp__seed__status"}));
    let t = text(&status);
    assert!(
        t.starts_with("Run it after every step.\n`mcp__seed__status` is seed's own tool `status`"),
        "{t}"
    );
    assert_eq!(status_st["source"], "file+seed");
    let (seed, seed_st) = ask(&mut c, json!({"component": "seed"}));
    assert_eq!(seed_st["source"], "file+seed", "{seed}");
    assert!(text(&seed).contains("## seed.status\nRun it after every step."));
    assert_eq!(
        seed_st["seed_tools"].as_array().unwrap().len(),
        seed::mcp::specs::NAMES.len()
    );
}

/// seed's own tools are components too, in every spelling the agent may use: what the tool does
/// and its arguments; `seed` is all eight. A step of the sequence that is seed's tool gets both.
#[test]
fn how_do_i_answers_for_seeds_own_tools() {
    let home = tempfile::tempdir().unwrap();
    let mut c = Client::start_with(
        home.path(),
        None,
        &[("SEED_SEQUENCE", Some("starlog_initialization"))],
    );
    for spelling in [
        "mcp__seed__status",
        "seed.status",
        "SEED.Status",
        "mcp__plugin_seed_seed__status",
    ] {
        let (answer, answer_st) = ask(&mut c, json!({ "component": spelling }));
        assert_eq!(answer_st["found"], true, "{spelling}: {answer}");
        assert_eq!(answer_st["seed_tools"], json!(["status"]));
        assert_eq!(answer_st["source"], "seed");
        let t = text(&answer);
        assert!(
            t.starts_with("`mcp__seed__status` is seed's own tool `status`: Show the layered")
                && t.contains("Arguments: `session` ("),
            "{spelling}: {t}"
        );
    }
    let none = text(&c.call("how_do_i", json!({"component": "seed.sequences"})));
    assert!(none.contains("It takes no arguments."), "{none}");

    let (all, all_st) = ask(&mut c, json!({"component": "seed"}));
    assert_eq!(
        all_st["seed_tools"].as_array().unwrap().len(),
        seed::mcp::specs::NAMES.len()
    );
    for tool in seed::mcp::specs::NAMES {
        assert!(
            text(&all).contains(&format!("seed's own tool `{tool}`")),
            "{tool}: {all}"
        );
    }
    // Not a tool of seed's: still unknown, and the list says what is.
    let (unknown, unknown_st) = ask(&mut c, json!({"component": "seed.teleport"}));
    assert_eq!(unknown_st["found"], false, "{unknown}");
    let t = text(&unknown);
    assert!(t.contains("- servers: seed, starlog, starship\n"), "{t}");
    assert!(
        t.contains("- seed's own tools: status, recovery, explain, sequences, validate, who_am_i, what_do_i_do, how_do_i, add_to_seed\n"),
        "{t}"
    );

    // compound_intelligence steps through seed's own tools: the step and the tool.
    let mut ci = Client::start(home.path(), None);
    let (both, both_st) = ask(&mut ci, json!({"component": "mcp__seed__who_am_i"}));
    assert_eq!(both_st["source"], "sequence+seed", "{both}");
    let t = text(&both);
    assert!(
        t.starts_with("\"seed.who_am_i\" is a step of \"compound_intelligence\"")
            && t.contains("`mcp__seed__who_am_i` is seed's own tool `who_am_i`"),
        "{t}"
    );
}

/// The known steps an unknown component lists are the ones the agent can call or that count
/// for progress: not the master dialect's `start` or its constraint states, which the chart
/// enters on its own.
#[test]
fn how_do_i_lists_only_steps_the_agent_can_call_or_ask_about() {
    let home = tempfile::tempdir().unwrap();
    for (sequence, listed, hidden) in [
        (
            "compound_intelligence",
            &[
                "seed.who_am_i",
                "starlog.orient",
                "heaven-subagent.collect_results",
            ][..],
            &[
                "start",
                "no constraint",
                "waypoint_active_learning",
                "flight_active_debugging",
            ][..],
        ),
        (
            "starlog_initialization",
            &["starlog.check", "starship.fly"],
            &["start"],
        ),
        // Steps a reader moves through still count for progress: they are listed.
        (
            "seaam_organ_lifecycle",
            &["Designed", "Running", "Failed"],
            &[],
        ),
    ] {
        let mut c = Client::start_with(home.path(), None, &[("SEED_SEQUENCE", Some(sequence))]);
        let (answer, answer_st) = ask(&mut c, json!({"component": "teleport"}));
        let steps: Vec<&str> = answer_st["known"]["steps"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_str().unwrap())
            .collect();
        for s in listed {
            assert!(steps.contains(s), "{sequence}: {s} in {steps:?}");
        }
        for s in hidden {
            assert!(!steps.contains(s), "{sequence}: {s} not in {steps:?}");
        }
        let line = format!("- steps: {}\n", steps.join(", "));
        assert!(text(&answer).contains(&line), "{answer}");
    }
}

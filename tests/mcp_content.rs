//! The content tools (`who_am_i`, `what_do_i_do`, `how_do_i`) and `add_to_seed`: `.seed` files
//! from the state directory, else text generated from the active sequence, whatever the state
//! directory's condition.

mod mcp_common;

use std::path::Path;

use mcp_common::{Client, SESSION, hook_call, text};
use serde_json::{Value, json};

fn structured(answer: &Value) -> &Value {
    &answer["result"]["structuredContent"]
}

#[test]
fn content_tools_serve_seed_files_and_fall_back_to_the_sequence() {
    let home = tempfile::tempdir().unwrap();
    hook_call(home.path(), "mcp__seed__who_am_i", "toolu_1");
    let mut c = Client::start(home.path(), Some(SESSION));

    let who = c.call("who_am_i", json!({}));
    assert!(
        text(&who).contains("\"compound_intelligence\"") && text(&who).contains("base 0–50%"),
        "{who}"
    );
    assert_eq!(structured(&who)["source"], "session");
    let what = text(&c.call("what_do_i_do", json!({})));
    assert!(what.contains("mcp__seed__what_do_i_do"), "{what}");
    let how = text(&c.call("how_do_i", json!({"component": "starlog.check"})));
    assert!(how.contains("mcp__starlog__orient"), "{how}");

    std::fs::write(
        home.path().join("who_am_i.seed"),
        "You are the navigator.\n",
    )
    .unwrap();
    std::fs::write(
        home.path().join("how_do_i.seed"),
        "# waypoint\nCall start_waypoint_journey.\n\n## carton\nAdd concepts.\n",
    )
    .unwrap();
    let who = c.call("who_am_i", json!({}));
    assert_eq!(text(&who), "You are the navigator.\n");
    assert_eq!(structured(&who)["source"], "file");
    assert_eq!(
        text(&c.call("how_do_i", json!({"component": "carton"}))),
        "Add concepts."
    );
    assert_eq!(
        text(&c.call("how_do_i", json!({"component": "WAYPOINT"}))),
        "Call start_waypoint_journey.",
        "section names compare case-insensitively"
    );
}

#[test]
fn content_tools_answer_without_a_state_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let missing = tmp.path().join("missing");
    let not_a_dir = tmp.path().join("a-file");
    std::fs::write(&not_a_dir, "").unwrap();
    // A state directory whose content file cannot be read (a directory in its place), and no
    // session asked for (one it does not hold is an error, below).
    let unreadable = tmp.path().join("unreadable");
    for f in ["who_am_i.seed", "what_do_i_do.seed", "how_do_i.seed"] {
        std::fs::create_dir_all(unreadable.join(f)).unwrap();
    }

    for (home, session) in [
        (&missing, Some(SESSION)),
        (&not_a_dir, Some(SESSION)),
        (&unreadable, None),
    ] {
        let mut c = Client::start(home, session);
        let who = c.call("who_am_i", json!({}));
        assert_eq!(who["result"]["isError"], false, "{}: {who}", home.display());
        assert!(text(&who).contains("\"compound_intelligence\""), "{who}");
        assert_eq!(structured(&who)["source"], "sequence");

        let what = c.call("what_do_i_do", json!({}));
        assert_eq!(what["result"]["isError"], false, "{what}");
        assert!(
            text(&what).contains("Do next: call mcp__seed__who_am_i"),
            "the active sequence at its start: {what}"
        );

        let how = c.call("how_do_i", json!({"component": "starlog.orient"}));
        assert_eq!(how["result"]["isError"], false, "{how}");
        assert!(text(&how).contains("mcp__starship__fly"), "{how}");
    }
}

#[test]
fn content_tools_say_so_when_no_sequence_is_active() {
    let home = tempfile::tempdir().unwrap();
    let mut c = Client::start_with(home.path(), None, &[("SEED_SEQUENCE", None)]);
    for tool in ["who_am_i", "what_do_i_do"] {
        let answer = c.call(tool, json!({}));
        assert_eq!(answer["result"]["isError"], false, "{answer}");
        assert!(
            text(&answer).starts_with("No sequence is active."),
            "{answer}"
        );
        assert_eq!(structured(&answer)["source"], "none");
    }
    // A `sequence` argument names one.
    let named = c.call("who_am_i", json!({"sequence": "waypoint_journey"}));
    assert!(text(&named).contains("\"waypoint_journey\""), "{named}");
    // An unknown one is an error result, one line naming the sequences it could be.
    for tool in ["who_am_i", "what_do_i_do", "how_do_i"] {
        let mut args = json!({"sequence": "no_such_sequence"});
        if tool == "how_do_i" {
            args["component"] = json!("x");
        }
        let unknown = c.call(tool, args);
        assert_eq!(unknown["result"]["isError"], true, "{tool}: {unknown}");
        let t = text(&unknown);
        assert!(
            t.starts_with("seed: unknown sequence `no_such_sequence`; known sequences: ")
                && t.contains("waypoint_journey")
                && t.contains("compound_intelligence")
                && !t.trim_end().contains('\n'),
            "{tool}: {t}"
        );
    }
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
        let answer = how(&mut c, server);
        let steps = &structured(&answer)["steps"];
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

    let unknown = how(&mut c, "teleport");
    assert_eq!(unknown["result"]["isError"], false);
    assert_eq!(structured(&unknown)["found"], false);
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

    for spelling in ["starlog.orient", "mcp__starlog__orient", "STARLOG.ORIENT"] {
        let answer = c.call("how_do_i", json!({ "component": spelling }));
        assert_eq!(text(&answer), "Read the registry first.", "{spelling}");
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
fn add_to_seed_explains_checks_and_writes_only_when_asked() {
    let home = tempfile::tempdir().unwrap();
    let mut c = Client::start(home.path(), None);

    let help = text(&c.call("add_to_seed", json!({})));
    assert!(help.contains("seed validate"), "{help}");
    let proposal = r#"{"name": "mine", "tool_transitions": {"a": {"next_allowed": ["b"]}}}"#;
    let checked = c.call(
        "add_to_seed",
        json!({"file_name": "mine.json", "text": proposal}),
    );
    assert_eq!(structured(&checked)["valid"], true, "{checked}");
    assert_eq!(checked["result"]["isError"], false);
    assert!(
        !home.path().join("sequences/mine.json").exists(),
        "nothing written unless asked"
    );
    let broken = c.call(
        "add_to_seed",
        json!({"file_name": "bad.json", "text": "{\"name\": 1}", "write": true}),
    );
    assert_eq!(structured(&broken)["valid"], false);
    assert_eq!(
        broken["result"]["isError"], true,
        "as `seed validate` exits 1"
    );
    assert!(text(&broken).contains("not saved: fix the errors first"));
    assert!(!home.path().join("sequences/bad.json").exists());

    c.call(
        "add_to_seed",
        json!({"file_name": "mine.json", "text": proposal, "write": true}),
    );
    let saved = home.path().join("sequences/mine.json");
    assert_eq!(std::fs::read_to_string(&saved).unwrap(), proposal);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&saved), 0o600, "saved like the rest of the store");
        assert_eq!(mode(&home.path().join("sequences")), 0o700);
    }
}

#[test]
fn add_to_seed_never_overwrites_shadows_or_replaces_a_running_sequence() {
    let home = tempfile::tempdir().unwrap();
    let flow = |name: &str| {
        format!(r#"{{"name": "{name}", "tool_transitions": {{"a": {{"next_allowed": ["b"]}}}}}}"#)
    };
    // A session running a sequence from a file of the project.
    let project_flow = home.path().join("team_flow.json");
    std::fs::write(&project_flow, flow("team_flow")).unwrap();
    mcp_common::seed(home.path())
        .env("SEED_SEQUENCE", &project_flow)
        .arg("hook")
        .write_stdin(
            json!({"session_id": "5eed-team", "hook_event_name": "PostToolUse", "tool_name": "a", "tool_input": {}})
                .to_string(),
        )
        .assert()
        .success();
    let mut c = Client::start_with(home.path(), None, &[("SEED_SEQUENCE", Some("house_rules"))]);
    let sequences = home.path().join("sequences");
    let save = |c: &mut Client, file: &str, text: &str| {
        c.call(
            "add_to_seed",
            json!({"file_name": file, "text": text, "write": true}),
        )
    };

    let mine = save(&mut c, "mine.json", &flow("mine"));
    assert_eq!(mine["result"]["isError"], false, "{mine}");
    let refusals = [
        (
            "compound_intelligence.json",
            flow("compound_intelligence"),
            "is a built-in sequence",
        ),
        (
            "other.json",
            flow("waypoint_journey"),
            "`waypoint_journey` is a built-in sequence",
        ),
        (
            "mine.json",
            flow("mine2"),
            "already holds a sequence `mine` (mine.json)",
        ),
        (
            "mine.yaml",
            "name: mine\nnodes: {}\n".to_string(),
            "already holds a sequence `mine`",
        ),
        (
            "team_flow.json",
            flow("team_flow"),
            "is the sequence of session 5eed-team",
        ),
        (
            "house_rules.json",
            flow("house_rules"),
            "is this project's active sequence",
        ),
    ];
    for (file, proposal, why) in refusals {
        let answer = save(&mut c, file, &proposal);
        let valid = structured(&answer)["valid"] == true;
        assert_eq!(answer["result"]["isError"], true, "{file}: {answer}");
        if valid {
            assert!(
                structured(&answer)["refused"]
                    .as_str()
                    .unwrap()
                    .contains(why),
                "{file}: {answer}"
            );
            assert!(text(&answer).contains("not saved: "), "{answer}");
        }
        assert_eq!(structured(&answer)["written"], Value::Null, "{file}");
    }
    let mut left: Vec<String> = std::fs::read_dir(&sequences)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(left, ["mine.json"], "nothing else was written");
    assert_eq!(
        std::fs::read_to_string(sequences.join("mine.json")).unwrap(),
        flow("mine"),
        "and the first file is untouched"
    );

    #[cfg(unix)]
    {
        // Even a dangling symlink in the file's place is never written through.
        let target = home.path().join("elsewhere.json");
        std::os::unix::fs::symlink(&target, sequences.join("linked.json")).unwrap();
        let answer = save(&mut c, "linked.json", &flow("linked"));
        assert_eq!(answer["result"]["isError"], true, "{answer}");
        assert!(!target.exists());
    }
}

#[test]
fn content_tools_name_a_session_the_state_directory_does_not_hold() {
    let home = tempfile::tempdir().unwrap();
    hook_call(home.path(), "mcp__seed__who_am_i", "toolu_1");
    std::fs::write(
        home.path().join("who_am_i.seed"),
        "You are the navigator.\n",
    )
    .unwrap();
    let mut c = Client::start(home.path(), None);
    for (tool, args) in [
        ("who_am_i", json!({"session": "no-such-session"})),
        ("what_do_i_do", json!({"session": "no-such-session"})),
        (
            "how_do_i",
            json!({"session": "no-such-session", "component": "starlog"}),
        ),
    ] {
        let answer = c.call(tool, args);
        assert_eq!(answer["result"]["isError"], true, "{tool}: {answer}");
        assert!(
            text(&answer).starts_with("seed: no session `no-such-session` in "),
            "{tool}: {answer}"
        );
    }
    // The calling session too, as `status` says it.
    let mut caller = Client::start(home.path(), Some("5eed-unknown"));
    let what = caller.call("what_do_i_do", json!({}));
    let status = caller.call("status", json!({}));
    assert_eq!(what["result"]["isError"], true, "{what}");
    assert_eq!(text(&what), text(&status));
}

#[test]
fn how_do_i_says_which_source_answered() {
    let home = tempfile::tempdir().unwrap();
    hook_call(home.path(), "mcp__seed__who_am_i", "toolu_1");
    std::fs::write(
        home.path().join("how_do_i.seed"),
        "## carton\nAdd concepts.\n\n## starlog.fly\nPick a flight.\n",
    )
    .unwrap();
    let mut c = Client::start(home.path(), Some(SESSION));
    let source = |c: &mut Client, component: &str| {
        let answer = c.call("how_do_i", json!({ "component": component }));
        structured(&answer)["source"].clone()
    };
    assert_eq!(source(&mut c, "carton"), "file", "a section alone");
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

#[test]
fn add_to_seed_refuses_paths_and_survives_empty_huge_and_hostile_text() {
    let home = tempfile::tempdir().unwrap();
    let mut c = Client::start(home.path(), None);
    let proposal = r#"{"name": "ok_flow", "tool_transitions": {"a": {"next_allowed": ["b"]}}}"#;
    for name in ["../escape.json", "sub/x.json", ".hidden.json", "a\\b.json"] {
        let answer = c.call(
            "add_to_seed",
            json!({"file_name": name, "text": proposal, "write": true}),
        );
        assert_eq!(answer["result"]["isError"], true, "{name}: {answer}");
        assert!(
            text(&answer).contains("must be a plain file name"),
            "{answer}"
        );
    }
    assert!(!home.path().join("escape.json").exists());
    for (name, proposal) in [
        ("empty.json", String::new()),
        ("nul\u{0}.json", proposal.to_string()),
        (
            "huge.json",
            format!("{{\"name\": \"{}\"", "x".repeat(4 << 20)),
        ),
        ("deep.json", "[".repeat(100_000)),
        ("noext", proposal.to_string()),
    ] {
        let answer = c.call(
            "add_to_seed",
            json!({"file_name": name, "text": proposal, "write": true}),
        );
        assert_eq!(answer["result"]["isError"], true, "{name}");
        assert_eq!(structured(&answer)["written"], Value::Null, "{name}");
    }
    let left = std::fs::read_dir(home.path().join("sequences"))
        .map(|rd| rd.count())
        .unwrap_or(0);
    assert_eq!(left, 0, "nothing written");
    assert!(
        text(&c.call("sequences", json!({}))).contains("compound_intelligence"),
        "still serving"
    );
}

/// Every sequence name the configuration mentions is refused, even when no file of that name
/// exists yet: saving it would switch it on (or under an override) without a configuration
/// edit. The project's and the user's files both count.
#[test]
fn add_to_seed_refuses_names_the_configuration_mentions() {
    let home = tempfile::tempdir().unwrap();
    let proj = home.path().join("proj");
    let user = home.path().join("ucfg");
    std::fs::create_dir_all(&proj).unwrap();
    std::fs::create_dir_all(&user).unwrap();
    std::fs::write(
        proj.join(".seed.toml"),
        "sequences = [\"house_rules\", \"later_flow\", \"flows/next_flow.yaml\"]\n[overrides.tuned]\nenforcement = \"observe\"\n",
    )
    .unwrap();
    std::fs::write(user.join("config.toml"), "sequence = \"user_flow\"\n").unwrap();
    let (p, u) = (proj.display().to_string(), user.display().to_string());
    let mut c = Client::start_with(
        home.path(),
        None,
        &[
            ("SEED_SEQUENCE", None),
            ("CLAUDE_PROJECT_DIR", Some(&p)),
            ("SEED_CONFIG_DIR", Some(&u)),
        ],
    );
    let flow = |name: &str| {
        format!(r#"{{"name": "{name}", "tool_transitions": {{"a": {{"next_allowed": ["b"]}}}}}}"#)
    };
    for (name, why) in [
        (
            "house_rules",
            "is this project's active sequence".to_string(),
        ),
        (
            "later_flow",
            format!("is named in {}", proj.join(".seed.toml").display()),
        ),
        ("next_flow", "is named in".into()),
        ("tuned", "([overrides.tuned])".into()),
        (
            "user_flow",
            format!("is named in {}", user.join("config.toml").display()),
        ),
    ] {
        let answer = c.call(
            "add_to_seed",
            json!({"file_name": format!("{name}.json"), "text": flow(name), "write": true}),
        );
        assert_eq!(answer["result"]["isError"], true, "{name}: {answer}");
        let refused = structured(&answer)["refused"]
            .as_str()
            .unwrap_or("")
            .to_string();
        assert!(refused.contains(&why), "{name}: {refused}");
    }
    assert!(!home.path().join("sequences").exists(), "nothing written");
    let other = c.call(
        "add_to_seed",
        json!({"file_name": "other_flow.json", "text": flow("other_flow"), "write": true}),
    );
    assert_eq!(other["result"]["isError"], false, "{other}");
}

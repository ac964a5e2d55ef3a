//! The content tools (`who_am_i`, `what_do_i_do`, `how_do_i`): `.seed` files from the state
//! directory, else text generated from the session's sequence, else — before any session is
//! recorded — from the active sequence at its start. A session that is asked for and missing,
//! or that cannot be read, is an error in `status`'s words.

use crate::support::mcp as mcp_common;

use mcp_common::{Client, SESSION, hook_call, text};
use serde_json::json;

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
    assert_eq!(c.structured("who_am_i", json!({}))["source"], "session");
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
    assert_eq!(c.structured("who_am_i", json!({}))["source"], "file");
    // A section leads the answer; the server's steps of the session's sequence follow it.
    let carton = text(&c.call("how_do_i", json!({"component": "carton"})));
    assert!(
        carton.starts_with("Add concepts.\n\"carton\" in \"compound_intelligence\""),
        "{carton}"
    );
    let waypoint = text(&c.call("how_do_i", json!({"component": "WAYPOINT"})));
    assert!(
        waypoint.starts_with("Call start_waypoint_journey.\n"),
        "section names compare case-insensitively: {waypoint}"
    );
}

/// Before any session is recorded — nothing names one, or only the calling session, and the
/// state directory is missing or empty — the active sequence answers at its start.
#[test]
fn content_tools_answer_before_any_session_is_recorded() {
    let tmp = tempfile::tempdir().unwrap();
    let missing = tmp.path().join("missing");
    let empty = tmp.path().join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    // A state directory whose content file cannot be read (a directory in its place).
    let unreadable = tmp.path().join("unreadable");
    for f in ["who_am_i.seed", "what_do_i_do.seed", "how_do_i.seed"] {
        std::fs::create_dir_all(unreadable.join(f)).unwrap();
    }

    for (home, session) in [
        (&missing, Some(SESSION)),
        (&missing, None),
        (&empty, Some(SESSION)),
        (&unreadable, None),
    ] {
        let mut c = Client::start(home, session);
        let who = c.call("who_am_i", json!({}));
        assert_eq!(who["result"]["isError"], false, "{}: {who}", home.display());
        assert!(text(&who).contains("\"compound_intelligence\""), "{who}");
        assert_eq!(c.structured("who_am_i", json!({}))["source"], "sequence");

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

/// A session named explicitly has to exist, with or without a state directory; a state
/// directory that is a file is no "session yet" either. Each content tool says what `status`
/// says for the same session, never the start of the sequence.
#[test]
fn a_named_session_or_a_broken_state_directory_is_an_error_as_in_status() {
    let tmp = tempfile::tempdir().unwrap();
    let missing = tmp.path().join("missing");
    let not_a_dir = tmp.path().join("a-file");
    std::fs::write(&not_a_dir, "").unwrap();
    let cases = [
        (
            &missing,
            json!({"session": "typo-session"}),
            "does not exist",
        ),
        (
            &not_a_dir,
            json!({"session": "typo-session"}),
            "is not a directory",
        ),
        (&not_a_dir, json!({}), "is not a directory"),
    ];
    for (home, args, why) in cases {
        let mut c = Client::start(home, Some(SESSION));
        let status = c.call("status", args.clone());
        assert_eq!(status["result"]["isError"], true, "{status}");
        assert!(text(&status).contains(why), "{status}");
        for tool in ["who_am_i", "what_do_i_do", "how_do_i"] {
            let mut args = args.clone();
            args["component"] = json!("starlog");
            if tool != "how_do_i" {
                args.as_object_mut().unwrap().remove("component");
            }
            let answer = c.call(tool, args);
            assert_eq!(answer["result"]["isError"], true, "{tool}: {answer}");
            assert_eq!(text(&answer), text(&status), "{tool} {}", home.display());
        }
    }
}

/// A recorded session that cannot be read (here: its stored chart is garbage and its sequence
/// no longer resolves) is an error naming why, not the sequence's defaults.
#[test]
fn a_recorded_session_that_cannot_be_read_is_an_error_not_the_defaults() {
    let home = tempfile::tempdir().unwrap();
    let flow = home.path().join("team_flow.json");
    std::fs::write(
        &flow,
        r#"{"name": "team_flow", "tool_transitions": {"a": {"next_allowed": ["b"]}}}"#,
    )
    .unwrap();
    mcp_common::seed(home.path())
        .env("SEED_SEQUENCE", &flow)
        .arg("hook")
        .write_stdin(
            json!({"session_id": SESSION, "hook_event_name": "PostToolUse", "tool_name": "a", "tool_input": {}})
                .to_string(),
        )
        .assert()
        .success();
    let mut c = Client::start(home.path(), Some(SESSION));
    let before = c.call("who_am_i", json!({}));
    assert_eq!(
        c.structured("who_am_i", json!({}))["source"],
        "session",
        "{before}"
    );
    assert!(text(&before).contains("\"team_flow\""), "{before}");

    let charts = home.path().join(format!("sessions/{SESSION}/charts"));
    std::fs::write(charts.join("team_flow.json"), "garbage").unwrap();
    let status = c.call("status", json!({}));
    assert_eq!(status["result"]["isError"], true, "{status}");
    assert!(text(&status).contains("team_flow"), "{status}");
    for tool in ["who_am_i", "what_do_i_do"] {
        let answer = c.call(tool, json!({}));
        assert_eq!(answer["result"]["isError"], true, "{tool}: {answer}");
        assert_eq!(text(&answer), text(&status), "{tool}");
    }
}

/// A session the hook recorded while no sequence was active runs none: the content tools say
/// so, as before any session (it is not an error to have no workflow).
#[test]
fn a_session_recorded_without_a_sequence_is_answered_like_no_sequence() {
    let home = tempfile::tempdir().unwrap();
    mcp_common::seed(home.path())
        .env_remove("SEED_SEQUENCE")
        .arg("hook")
        .write_stdin(
            json!({"session_id": SESSION, "hook_event_name": "PostToolUse", "tool_name": "Read", "tool_input": {}})
                .to_string(),
        )
        .assert()
        .success();
    let mut c = Client::start_with(home.path(), Some(SESSION), &[("SEED_SEQUENCE", None)]);
    let what = c.call("what_do_i_do", json!({}));
    assert_eq!(what["result"]["isError"], false, "{what}");
    assert!(text(&what).starts_with("No sequence is active."), "{what}");
    // Read through a sequence named by argument, it is that session's log.
    let named = c.structured("who_am_i", json!({"sequence": "waypoint_journey"}));
    assert_eq!(named["source"], "session", "{named}");
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
        assert_eq!(c.structured(tool, json!({}))["source"], "none");
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

//! `add_to_seed`: how to extend seed, and proposed sequences checked as text, written only when
//! asked, never over, beside or instead of a sequence that exists, runs or is configured.

use crate::support::mcp as mcp_common;

use std::path::Path;

use mcp_common::{Client, text};
use serde_json::{Value, json};

#[test]
fn add_to_seed_explains_checks_and_writes_only_when_asked() {
    let home = tempfile::tempdir().unwrap();
    let mut c = Client::start(home.path(), None);

    let help = text(&c.call("add_to_seed", json!({})));
    assert!(help.contains("seed validate"), "{help}");
    let proposal = r#"{"name": "mine", "tool_transitions": {"a": {"next_allowed": ["b"]}}}"#;
    let args = json!({"file_name": "mine.json", "text": proposal});
    let checked = c.call("add_to_seed", args.clone());
    assert_eq!(checked["result"]["isError"], false, "{checked}");
    assert_eq!(c.structured("add_to_seed", args)["valid"], true);
    assert!(
        !home.path().join("sequences/mine.json").exists(),
        "nothing written unless asked"
    );
    let args = json!({"file_name": "bad.json", "text": "{\"name\": 1}", "write": true});
    let broken = c.call("add_to_seed", args.clone());
    assert_eq!(c.structured("add_to_seed", args)["valid"], false);
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
    let args = |file: &str, text: &str| json!({"file_name": file, "text": text, "write": true});
    let save = |c: &mut Client, file: &str, text: &str| c.call("add_to_seed", args(file, text));

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
        // Every rule compares names without case: on macOS's or Windows' file system
        // `Compound_Intelligence.json` would be the built-in's own file.
        (
            "Compound_Intelligence.json",
            flow("fresh_one"),
            "`Compound_Intelligence` is a built-in sequence (`compound_intelligence`: names compare without case)",
        ),
        (
            "other.json",
            flow("WAYPOINT_journey"),
            "`WAYPOINT_journey` is a built-in sequence",
        ),
        (
            "MINE.json",
            flow("fresh_two"),
            "already holds a sequence `MINE` (mine.json)",
        ),
        (
            "Team_Flow.json",
            flow("fresh_three"),
            "is the sequence of session 5eed-team",
        ),
        (
            "fresh_four.json",
            flow("House_Rules"),
            "is this project's active sequence",
        ),
    ];
    for (file, proposal, why) in refusals {
        let answer = save(&mut c, file, &proposal);
        assert_eq!(answer["result"]["isError"], true, "{file}: {answer}");
        // Refused, so asking again for the JSON answer writes nothing either.
        let structured = c.structured("add_to_seed", args(file, &proposal));
        if structured["valid"] == true {
            assert!(
                structured["refused"].as_str().unwrap().contains(why),
                "{file}: {answer}"
            );
            assert!(text(&answer).contains("not saved: "), "{answer}");
        }
        assert_eq!(structured["written"], Value::Null, "{file}");
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
        let answer = c.call_json(
            "add_to_seed",
            json!({"file_name": name, "text": proposal, "write": true}),
        );
        assert_eq!(answer["result"]["isError"], true, "{name}");
        assert_eq!(
            answer["result"]["structuredContent"]["written"],
            Value::Null,
            "{name}"
        );
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

const DIAGRAM: &str = "stateDiagram-v2\n    [*] --> Plan\n    Plan --> Build : mcp__tasks__plan\n    Build --> [*] : mcp__tasks__ship\n";

/// A Mermaid proposal comes with its manifest: both are checked as one sequence (the manifest
/// reading the diagram), and saved together or not at all.
#[test]
fn add_to_seed_checks_a_mermaid_diagram_with_its_manifest_and_saves_both() {
    let home = tempfile::tempdir().unwrap();
    let mut c = Client::start(home.path(), None);
    let manifest = "name = \"my_flow\"\ndiagram = \"flow.mmd\"\nenforcement = \"observe\"\n";
    let propose = |c: &mut Client, text: &str, manifest: &str, write: bool| {
        c.call(
            "add_to_seed",
            json!({"file_name": "flow.mmd", "text": text, "manifest": manifest, "write": write}),
        )
    };

    let checked = propose(&mut c, DIAGRAM, manifest, false);
    assert_eq!(checked["result"]["isError"], false, "{checked}");
    assert!(
        text(&checked).starts_with("ok   flow.toml: \"my_flow\", 3 states"),
        "checked as the manifest's sequence: {checked}"
    );
    for (bad_diagram, bad_manifest, why) in [
        (
            DIAGRAM,
            "name = \"my_flow\"\ndiagram = \"flow.mmd\"\n[[policy]]\nstate = \"Nowhere\"\nallow = [\"Read\"]\n",
            "flow.toml:4:9: error[load]: no state `Nowhere`",
        ),
        ("stateDiagram-v2\n    [*] --> \n", manifest, "flow.mmd:"),
        (
            DIAGRAM,
            "name = \"my_flow\"\ndiagram = \"other.mmd\"\n",
            "set `diagram = \"flow.mmd\"`",
        ),
    ] {
        let answer = propose(&mut c, bad_diagram, bad_manifest, true);
        assert_eq!(answer["result"]["isError"], true, "{answer}");
        assert!(text(&answer).contains(why), "{why}: {answer}");
        assert!(text(&answer).contains("not saved: fix the errors first"));
    }
    assert!(!home.path().join("sequences").exists(), "nothing written");

    let saved = c.call_json(
        "add_to_seed",
        json!({"file_name": "flow.mmd", "text": DIAGRAM, "manifest": manifest, "write": true}),
    );
    assert_eq!(saved["result"]["isError"], false, "{saved}");
    let dir = home.path().join("sequences");
    assert_eq!(
        std::fs::read_to_string(dir.join("flow.mmd")).unwrap(),
        DIAGRAM
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("flow.toml")).unwrap(),
        manifest
    );
    assert_eq!(
        saved["result"]["structuredContent"]["files"]
            .as_array()
            .map(Vec::len),
        Some(2),
        "{saved}"
    );
    let cli = mcp_common::seed(home.path())
        .arg("validate")
        .arg(dir.join("flow.toml"))
        .output()
        .unwrap();
    assert_eq!(cli.status.code(), Some(0), "the saved pair is a sequence");

    // Saved again: refused, and the existing pair is untouched.
    let again = propose(
        &mut c,
        DIAGRAM,
        "name = \"other\"\ndiagram = \"flow.mmd\"\n",
        true,
    );
    assert_eq!(again["result"]["isError"], true, "{again}");
    assert_eq!(
        std::fs::read_to_string(dir.join("flow.toml")).unwrap(),
        manifest
    );
}

/// The extension picks the dialect: without one (or with a manifest's), the answer says which
/// are accepted; a manifest goes only with a diagram.
#[test]
fn add_to_seed_says_which_file_names_it_accepts() {
    let home = tempfile::tempdir().unwrap();
    let mut c = Client::start(home.path(), None);
    let accepted = ".json (master sequence), .yaml or .yml (workflow) or .mmd (Mermaid diagram, its TOML manifest as `manifest`)";
    for (args, message) in [
        (
            json!({"file_name": "flow", "text": DIAGRAM}),
            format!("`file_name` must end in {accepted}, got `flow`"),
        ),
        (
            json!({"file_name": "flow.txt", "text": DIAGRAM}),
            format!("`file_name` must end in {accepted}, got `flow.txt`"),
        ),
        (
            json!({"file_name": "flow.toml", "text": "name = \"x\""}),
            "`file_name` names the Mermaid diagram, not its manifest: pass the diagram as `text` with file_name flow.mmd and the manifest as `manifest`".into(),
        ),
        (
            json!({"file_name": "flow.json", "text": "{}", "manifest": "name = \"x\""}),
            "`manifest` goes with a Mermaid diagram (a file_name ending in .mmd), not `flow.json`".into(),
        ),
        (
            json!({"file_name": "flow.mmd", "manifest": "name = \"x\""}),
            "`manifest` needs its diagram: pass the Mermaid diagram as `text`".into(),
        ),
        (
            json!({"file_name": "flow.mmd", "text": DIAGRAM, "manifest": 3}),
            "`manifest` must be a string, got a number".into(),
        ),
    ] {
        let answer = c.call("add_to_seed", args.clone());
        assert_eq!(answer["result"]["isError"], true, "{args}: {answer}");
        assert_eq!(
            text(&answer),
            format!("seed: invalid arguments for `add_to_seed`: {message}"),
            "{args}"
        );
    }
}

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
    assert_eq!(
        text(&c.call("how_do_i", json!({"component": "carton"}))),
        "Add concepts."
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

//! `add_to_seed` refuses a name the configuration mentions: saved, such a file would switch a
//! sequence on, or change the one that guides the agent, without anyone editing the
//! configuration. Names compare without case, as macOS's and Windows' file systems do.

use crate::support::mcp as mcp_common;

use mcp_common::Client;
use serde_json::json;

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
        ("Later_Flow", "is named in".into()),
        ("NEXT_FLOW", "is named in".into()),
        ("House_Rules", "is this project's active sequence".into()),
        ("tuned", "([overrides.tuned])".into()),
        (
            "user_flow",
            format!("is named in {}", user.join("config.toml").display()),
        ),
    ] {
        let answer = c.call_json(
            "add_to_seed",
            json!({"file_name": format!("{name}.json"), "text": flow(name), "write": true}),
        );
        assert_eq!(answer["result"]["isError"], true, "{name}: {answer}");
        let refused = answer["result"]["structuredContent"]["refused"]
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

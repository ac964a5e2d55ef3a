//! The MCP servers a sequence calls, against what Claude Code's configuration gives the project
//! (its `.mcp.json` and the settings that approve it, `~/.claude.json`): `seed doctor` names
//! each one missing with how to add it (and fails), `seed install` warns, `seed validate NAME`
//! warns. A configuration file that is empty, malformed, huge or hostile is one clear line,
//! never a crash.

use serde_json::{Value, json};

use crate::support::project as project_common;
use project_common::{Project, bin};

fn install(p: &Project) -> String {
    let b = bin();
    let args = [
        "install",
        "--local",
        "--bin",
        b.to_str().unwrap(),
        "--sequence",
        "starlog_initialization",
    ];
    let (code, out, err) = p.seed(&args);
    assert_eq!(code, 0, "{out}{err}");
    err
}

fn doctor(p: &Project) -> (i32, Value, String) {
    let (code, out, err) = p.seed(&["doctor", "--json"]);
    let v = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}{err}"));
    let (_, text, err) = p.seed(&["doctor"]);
    assert!(!err.contains("panicked"), "{err}");
    (code, v, text)
}

fn write(p: &Project, rel: &str, text: impl AsRef<[u8]>) {
    let path = p.root().join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn user_config(p: &Project, text: impl AsRef<[u8]>) {
    let home = p.dir.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(home.join(".claude.json"), text).unwrap();
}

fn lines_with<'t>(text: &'t str, needle: &str) -> Vec<&'t str> {
    text.lines().filter(|l| l.contains(needle)).collect()
}

#[test]
fn doctor_names_each_missing_server_with_how_to_add_it() {
    let p = Project::new();
    let warned = install(&p);
    assert!(
        warned.contains("seed: warning: sequence starlog_initialization needs MCP server \"starlog\" (check, orient, init_project), which Claude Code's configuration for this project does not provide; fix: claude mcp add starlog -- "),
        "{warned}"
    );
    let (code, report, text) = doctor(&p);
    assert_eq!(code, 1, "{text}");
    let missing: Vec<&str> = report["servers"]["needs"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["provided"] == "no")
        .map(|n| n["server"].as_str().unwrap())
        .collect();
    assert_eq!(missing, ["starlog", "starship"]);
    assert!(
        text.contains("✗ sequence starlog_initialization needs MCP server \"starship\" (fly), which Claude Code's configuration for this project does not provide\n    fix: claude mcp add starship -- "),
        "{text}"
    );

    // One from the project's approved .mcp.json, one the user added for this project.
    write(
        &p,
        ".mcp.json",
        r#"{"mcpServers": {"starlog": {"command": "starlog"}}}"#,
    );
    let settings = p.root().join(".claude/settings.local.json");
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    v["enabledMcpjsonServers"] = json!(["starlog"]);
    std::fs::write(&settings, v.to_string()).unwrap();
    let local = json!({"projects": {p.root().display().to_string(): {
        "mcpServers": {"starship": {"command": "starship"}}}}});
    user_config(&p, local.to_string());
    let (code, _, text) = doctor(&p);
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains("✓ sequence starlog_initialization needs MCP server \"starlog\" (check, orient, init_project): configured"),
        "{text}"
    );
    assert!(install(&p).is_empty(), "nothing to warn about");
}

#[test]
fn a_project_server_waiting_for_approval_is_told_without_failing() {
    let p = Project::new();
    install(&p);
    write(
        &p,
        ".mcp.json",
        r#"{"mcpServers": {"starlog": {"command": "a"}, "starship": {"command": "b"}}}"#,
    );
    let (code, _, text) = doctor(&p);
    assert_eq!(code, 0, "{text}");
    let waiting = lines_with(&text, "not approved yet");
    assert_eq!(waiting.len(), 2, "{text}");
    assert!(
        waiting[0].starts_with("! sequence starlog_initialization needs MCP server \"starlog\"")
    );
    assert!(text.contains(
        "fix: approve it when Claude Code asks, or set \"enableAllProjectMcpServers\": true"
    ));
}

#[test]
fn validate_warns_of_a_named_sequences_missing_server() {
    let p = Project::new();
    let (code, out, err) = p.seed(&["validate", "starlog_initialization"]);
    assert_eq!(
        code, 0,
        "a missing server is no error in the sequence: {out}{err}"
    );
    let warned = lines_with(&out, "warning[mcp-server]");
    assert_eq!(warned.len(), 2, "{out}");
    assert!(warned[0].contains("needs MCP server \"starlog\""), "{out}");
    p.provide_servers(project_common::STARLOG_SERVERS);
    let (_, out, _) = p.seed(&["validate", "starlog_initialization"]);
    assert!(lines_with(&out, "warning[mcp-server]").is_empty(), "{out}");
}

/// Each broken configuration file: (what it is, where, its text).
fn broken_files() -> Vec<(&'static str, &'static str, Vec<u8>)> {
    let huge = format!(
        r#"{{"mcpServers": {{"starlog": {{}}}}, "pad": "{}"}}"#,
        "x".repeat(17 << 20)
    );
    let deep = format!("{}{}", "[".repeat(50_000), "]".repeat(50_000));
    vec![
        (
            "malformed",
            ".mcp.json",
            br#"{"mcpServers": {"starlog": "#.to_vec(),
        ),
        (
            "malformed",
            "~/.claude.json",
            b"{\"mcpServers\": nope}".to_vec(),
        ),
        ("not an object", ".mcp.json", b"[1, 2, 3]".to_vec()),
        ("deeply nested", "~/.claude.json", deep.into_bytes()),
        ("huge", "~/.claude.json", huge.into_bytes()),
        ("not UTF-8", ".mcp.json", b"{\"a\xff\": 1}".to_vec()),
    ]
}

#[test]
fn a_broken_configuration_file_is_one_line_and_never_a_crash() {
    for (what, at, text) in broken_files() {
        let p = Project::new();
        install(&p);
        match at {
            "~/.claude.json" => user_config(&p, &text),
            rel => write(&p, rel, &text),
        }
        let (code, report, out) = doctor(&p);
        assert_eq!(code, 1, "{what} {at}: the servers are still missing\n{out}");
        let file = at.trim_start_matches("~/");
        let told: Vec<&str> = lines_with(&out, "! Claude Code configuration:");
        assert_eq!(told.len(), 1, "{what} {at}: {out}");
        assert!(told[0].contains(file), "{what} {at}: {}", told[0]);
        assert_eq!(report["servers"]["problems"].as_array().unwrap().len(), 1);
        let (code, out, err) = p.seed(&["validate", "starlog_initialization"]);
        assert_eq!(code, 0, "{what} {at}: {out}{err}");
        assert_eq!(lines_with(&out, "warning[claude-config]").len(), 1, "{out}");
        let (code, _, err) = p.seed(&["install", "--local", "--bin", bin().to_str().unwrap()]);
        assert_eq!(code, 0, "{what} {at}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

#[test]
fn empty_configuration_files_say_nothing() {
    let p = Project::new();
    install(&p);
    write(&p, ".mcp.json", "");
    user_config(&p, "\n");
    let (_, report, text) = doctor(&p);
    assert_eq!(report["servers"]["problems"], json!([]), "{text}");
    assert!(lines_with(&text, "Claude Code configuration").is_empty());
    assert_eq!(lines_with(&text, "✗ sequence").len(), 2, "{text}");
}

#[test]
fn hostile_server_names_are_printed_as_claude_code_names_them() {
    let p = Project::new();
    install(&p);
    let cfg = json!({"mcpServers": {
        "star\u{1b}[2Jlog\nfake line": {"command": "x"},
        "starlog": "not an object, still a name",
        "y".repeat(5000): {},
    }});
    user_config(&p, cfg.to_string());
    let (code, report, text) = doctor(&p);
    assert_eq!(code, 1, "starship is still missing: {text}");
    assert!(
        !text.contains('\u{1b}') && !text.contains("fake line\n"),
        "{text:?}"
    );
    let starlog = &report["servers"]["needs"][0];
    assert_eq!(
        (&starlog["server"], &starlog["provided"]),
        (&json!("starlog"), &json!("yes"))
    );
}

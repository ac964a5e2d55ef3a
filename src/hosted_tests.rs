use std::path::Path;

use super::*;

/// A project and a home, each empty, and the environment a hook would see.
struct Sandbox {
    _dir: tempfile::TempDir,
    project: PathBuf,
    home: PathBuf,
}

impl Sandbox {
    fn new() -> Sandbox {
        let dir = tempfile::tempdir().unwrap();
        let (project, home) = (dir.path().join("project"), dir.path().join("home"));
        std::fs::create_dir_all(project.join(".claude")).unwrap();
        std::fs::create_dir_all(home.join(".claude")).unwrap();
        Sandbox {
            _dir: dir,
            project,
            home,
        }
    }

    fn write(&self, path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn project_file(&self, rel: &str, text: &str) {
        self.write(&self.project.join(rel), text);
    }

    fn home_file(&self, rel: &str, text: &str) {
        self.write(&self.home.join(rel), text);
    }

    fn read(&self) -> Reading {
        let home = self.home.display().to_string();
        read(&self.project, &move |k| (k == "HOME").then(|| home.clone()))
    }
}

fn servers(r: &Reading) -> Vec<&str> {
    r.hosted.servers.iter().map(String::as_str).collect()
}

const ANCHOR: &str = r#"{"mcpServers": {"anchor": {"command": "anchor-server"}}}"#;

#[test]
fn an_approved_project_server_is_provided() {
    let s = Sandbox::new();
    s.project_file(".mcp.json", ANCHOR);
    s.project_file(
        ".claude/settings.local.json",
        r#"{"enableAllProjectMcpServers": true}"#,
    );
    let r = s.read();
    assert_eq!(servers(&r), ["anchor"]);
    assert!(r.unapproved.is_empty() && r.problems.is_empty(), "{r:?}");
}

#[test]
fn a_project_server_nobody_approved_is_named_as_waiting() {
    let s = Sandbox::new();
    s.project_file(".mcp.json", ANCHOR);
    let r = s.read();
    assert_eq!(servers(&r), ["anchor"]);
    assert_eq!(r.unapproved, ["anchor"]);
}

#[test]
fn a_project_server_approved_by_name_in_the_users_config_is_provided() {
    let s = Sandbox::new();
    s.project_file(".mcp.json", ANCHOR);
    let entry = serde_json::json!({"projects": {s.project.display().to_string(): {
        "enabledMcpjsonServers": ["anchor"]}}});
    s.home_file(".claude.json", &entry.to_string());
    assert!(s.read().unapproved.is_empty());
}

#[test]
fn a_disabled_project_server_is_not_provided() {
    let s = Sandbox::new();
    s.project_file(".mcp.json", ANCHOR);
    s.project_file(
        ".claude/settings.json",
        r#"{"enableAllProjectMcpServers": true, "disabledMcpjsonServers": ["anchor"]}"#,
    );
    assert!(servers(&s.read()).is_empty());
}

#[test]
fn user_and_local_servers_come_from_the_users_config() {
    let s = Sandbox::new();
    let cfg = serde_json::json!({
        "mcpServers": {"starlog": {"command": "starlog"}},
        "projects": {
            s.project.display().to_string(): {"mcpServers": {"waypoint": {}}},
            "/elsewhere": {"mcpServers": {"other": {}}}
        }
    });
    s.home_file(".claude.json", &cfg.to_string());
    assert_eq!(servers(&s.read()), ["starlog", "waypoint"]);
}

#[test]
fn claude_config_dir_moves_the_users_files() {
    let s = Sandbox::new();
    let dir = s.home.join("elsewhere");
    s.write(
        &dir.join(".claude.json"),
        r#"{"mcpServers": {"starlog": {}}}"#,
    );
    s.home_file(".claude.json", r#"{"mcpServers": {"ignored": {}}}"#);
    let d = dir.display().to_string();
    let r = read(&s.project, &move |k| {
        (k == "CLAUDE_CONFIG_DIR").then(|| d.clone())
    });
    assert_eq!(servers(&r), ["starlog"]);
}

#[test]
fn a_permission_rule_tells_which_server_provides_a_tool() {
    let s = Sandbox::new();
    s.project_file(
        ".claude/settings.json",
        r#"{"permissions": {"allow": ["mcp__anchor__odyssean_anchor", "mcp__x__*", "Bash"]}}"#,
    );
    let r = s.read();
    assert_eq!(
        r.hosted.tools.get("odyssean_anchor").map(String::as_str),
        Some("anchor")
    );
    assert_eq!(r.hosted.tools.len(), 1, "{r:?}");
}

#[test]
fn an_enabled_plugin_provides_its_servers_under_its_name() {
    let s = Sandbox::new();
    let install = s.home.join("plugins-cache/tools");
    s.write(
        &install.join(".claude-plugin/plugin.json"),
        r#"{"name": "tools", "mcpServers": {"starlog": {"command": "x"}}}"#,
    );
    let installed = serde_json::json!({"version": 2, "plugins": {
        "tools@market": [{"scope": "user", "installPath": install.display().to_string()}]}});
    s.home_file(
        ".claude/plugins/installed_plugins.json",
        &installed.to_string(),
    );
    s.home_file(
        ".claude/settings.json",
        r#"{"enabledPlugins": {"tools@market": true, "seed@local": true, "off@m": false}}"#,
    );
    let r = s.read();
    assert_eq!(servers(&r), ["seed", "starlog"]);
    assert_eq!(
        r.hosted.plugins.get("starlog").map(String::as_str),
        Some("tools")
    );
    assert_eq!(
        r.hosted.plugins.get("seed").map(String::as_str),
        Some("seed")
    );
}

#[test]
fn nothing_configured_reads_as_no_servers_and_no_problem() {
    let s = Sandbox::new();
    s.project_file(".mcp.json", "");
    s.home_file(".claude.json", "  \n");
    let r = s.read();
    assert_eq!(r, Reading::default());
    let none = read(&s.project, &|_| None);
    assert_eq!(none, Reading::default());
}

#[test]
fn a_malformed_file_is_one_problem_and_the_others_still_count() {
    let s = Sandbox::new();
    s.project_file(".mcp.json", r#"{"mcpServers": {"anchor": "#);
    s.home_file(".claude.json", r#"{"mcpServers": {"starlog": {}}}"#);
    s.project_file(".claude/settings.json", "[1, 2]");
    let r = s.read();
    assert_eq!(servers(&r), ["starlog"]);
    assert_eq!(r.problems.len(), 2, "{:?}", r.problems);
    assert!(r.problems[0].contains("settings.json: not a JSON object"));
    assert!(r.problems[1].contains(".mcp.json: not JSON"));
}

#[test]
fn a_file_past_the_limit_is_not_read() {
    let s = Sandbox::new();
    let big = format!(
        r#"{{"mcpServers": {{"starlog": {{}}}}, "pad": "{}"}}"#,
        "x".repeat(MAX_CONFIG_BYTES as usize)
    );
    s.home_file(".claude.json", &big);
    let r = s.read();
    assert!(servers(&r).is_empty());
    assert_eq!(r.problems.len(), 1);
    assert!(
        r.problems[0].ends_with("larger than 16 MiB, not read"),
        "{:?}",
        r.problems
    );
}

#[test]
fn hostile_names_and_shapes_give_printable_names_or_nothing() {
    let s = Sandbox::new();
    let cfg = serde_json::json!({
        "mcpServers": {"evil\nname\u{1b}[2J": {}, "": {}, "y".repeat(10_000): {}},
        "projects": "not an object"
    });
    s.home_file(".claude.json", &cfg.to_string());
    s.project_file(".mcp.json", r#"{"mcpServers": ["anchor"]}"#);
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    s.project_file(".claude/settings.json", &deep);
    std::fs::create_dir_all(s.project.join(".claude/settings.local.json")).unwrap();
    let r = s.read();
    assert_eq!(servers(&r), ["evil_name__2J"]);
    assert_eq!(r.problems.len(), 2, "{:?}", r.problems);
    assert!(r.problems.iter().all(|p| !p.contains('\n')));
}

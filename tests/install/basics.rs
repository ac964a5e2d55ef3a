//! `seed install` / `uninstall` / `doctor` against settings files in a sandbox project.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::support::project as project_common;
use project_common::{Project, STARLOG_SERVERS, seed_commands};

/// The longest lock wait a configuration may ask for is shorter than the timeout install gives
/// the hook: a hook waiting for another's lock still answers before Claude Code gives up.
#[test]
fn the_longest_lock_wait_is_shorter_than_the_installed_hook_timeout() {
    let timeout = std::time::Duration::from_secs(seed::commands::install::TIMEOUT_SECS);
    assert!(seed::config::MAX_LOCK_WAIT < timeout);
}

fn settings(p: &Project) -> PathBuf {
    p.root().join(".claude/settings.json")
}

fn read(p: &Project) -> Value {
    p.json(".claude/settings.json")
}

#[test]
fn no_file_then_idempotent() {
    let p = Project::new();
    let (code, out, _) = p.seed(&["install", "--project"]);
    assert_eq!(code, 0, "{out}");
    let v = read(&p);
    let cmds = seed_commands(&v);
    assert_eq!(cmds.len(), seed::commands::install::HOOK_EVENTS.len());
    assert_eq!(
        v["hooks"]["PreToolUse"][0]["hooks"][0]["command"],
        "seed hook PreToolUse # seed-managed"
    );
    assert_eq!(v["hooks"]["PreToolUse"][0]["hooks"][0]["timeout"], 30);
    assert_eq!(v["hooks"]["PreToolUse"][0]["matcher"], "*");
    let before = std::fs::read(settings(&p)).unwrap();
    let (code, out, _) = p.seed(&["install", "--project"]);
    assert_eq!(code, 0);
    assert!(out.starts_with("no change"), "{out}");
    assert_eq!(
        std::fs::read(settings(&p)).unwrap(),
        before,
        "running twice changes nothing"
    );
    assert!(!Path::new(&format!("{}.seed-backup", settings(&p).display())).exists());
}

#[test]
fn empty_object_and_other_hooks_are_kept() {
    let p = Project::new();
    std::fs::write(settings(&p), "{}").unwrap();
    // A project sequence whose name needs quoting in a shell.
    p.add_sequence("my seq");
    assert_eq!(
        p.seed(&["install", "--project", "--sequence", "my seq"]).0,
        0
    );
    assert!(
        read(&p)["hooks"]["Stop"][0]["hooks"][0]["command"]
            .as_str()
            .unwrap()
            .contains("--sequence 'my seq' Stop")
    );

    let other = json!({
        "model": "opus",
        "permissions": { "allow": ["Bash(ls)"] },
        "hooks": {
            "PreToolUse": [{ "matcher": "Bash", "hooks": [{ "type": "command", "command": "lint-bash" }] }],
            "Notification": [{ "hooks": [{ "type": "command", "command": "notify-send hi" }] }]
        }
    });
    std::fs::write(settings(&p), serde_json::to_string_pretty(&other).unwrap()).unwrap();
    assert_eq!(p.seed(&["install", "--project"]).0, 0);
    let v = read(&p);
    assert_eq!(v["model"], "opus");
    assert_eq!(v["permissions"], other["permissions"]);
    assert_eq!(v["hooks"]["PreToolUse"][0], other["hooks"]["PreToolUse"][0]);
    assert_eq!(v["hooks"]["Notification"], other["hooks"]["Notification"]);
    assert_eq!(v["hooks"]["PreToolUse"].as_array().unwrap().len(), 2);
    // The backup is the file as it was.
    let backup =
        std::fs::read_to_string(format!("{}.seed-backup", settings(&p).display())).unwrap();
    assert_eq!(serde_json::from_str::<Value>(&backup).unwrap(), other);
    // Uninstall removes seed's entries and only those.
    assert_eq!(p.seed(&["uninstall", "--project"]).0, 0);
    assert_eq!(read(&p), other);
}

#[test]
fn seed_already_present_is_updated_in_place() {
    let p = Project::new();
    let old = json!({ "hooks": { "PreToolUse": [
        { "matcher": "*", "hooks": [{ "type": "command", "command": "/old/seed hook PreToolUse # seed-managed", "timeout": 60 }] },
        { "matcher": "Edit", "hooks": [{ "type": "command", "command": "fmt" }] },
        { "hooks": [{ "type": "command", "command": "/older/seed hook PreToolUse # seed-managed" }, { "type": "command", "command": "keep-me" }] }
    ] } });
    std::fs::write(settings(&p), old.to_string()).unwrap();
    assert_eq!(p.seed(&["install", "--project"]).0, 0);
    let v = read(&p);
    let pre = v["hooks"]["PreToolUse"].as_array().unwrap();
    assert_eq!(pre.len(), 3);
    assert_eq!(
        pre[0]["hooks"][0]["command"],
        "seed hook PreToolUse # seed-managed"
    );
    assert_eq!(pre[0]["hooks"][0]["timeout"], 30);
    assert_eq!(pre[1]["hooks"][0]["command"], "fmt");
    assert_eq!(
        pre[2]["hooks"],
        json!([{ "type": "command", "command": "keep-me" }])
    );
}

#[test]
fn syntax_error_is_refused_and_untouched() {
    let p = Project::new();
    let broken = "{\n  \"hooks\": {\n    \"PreToolUse\": [,]\n  }\n}\n";
    std::fs::write(settings(&p), broken).unwrap();
    let (code, _, err) = p.seed(&["install", "--project"]);
    assert_eq!(code, 1);
    assert!(
        err.contains("settings.json:3:") && err.contains("left untouched"),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(settings(&p)).unwrap(), broken);
    assert_eq!(p.seed(&["uninstall", "--project"]).0, 1);
    assert_eq!(std::fs::read_to_string(settings(&p)).unwrap(), broken);
}

#[test]
fn dry_run_prints_the_diff_and_writes_nothing() {
    let p = Project::new();
    let original = "{\n  \"model\": \"opus\"\n}\n";
    std::fs::write(settings(&p), original).unwrap();
    let (code, out, _) = p.seed(&["install", "--project", "--dry-run"]);
    assert_eq!(code, 0);
    let name = settings(&p).display().to_string();
    assert!(
        out.starts_with(&format!("--- {name}\n+++ {name}\n@@ ")),
        "{out}"
    );
    assert!(
        out.contains("+  \"hooks\": {")
            && out.contains("+            \"command\": \"seed hook SessionStart # seed-managed\","),
        "{out}"
    );
    assert!(
        out.contains("-  \"model\": \"opus\"\n+  \"model\": \"opus\",\n"),
        "{out}"
    );
    assert_eq!(std::fs::read_to_string(settings(&p)).unwrap(), original);
}

#[test]
fn local_scope_and_doctor() {
    let p = Project::new();
    let bin = assert_cmd::cargo::cargo_bin("seed");
    let bin = bin.to_str().unwrap();
    assert_eq!(
        p.seed(&[
            "install",
            "--local",
            "--bin",
            bin,
            "--sequence",
            "starlog_initialization"
        ])
        .0,
        0
    );
    assert!(p.root().join(".claude/settings.local.json").exists());
    p.provide_servers(STARLOG_SERVERS);
    let (code, out, err) = p.seed(&["doctor", "--json"]);
    assert_eq!(code, 0, "{out}{err}");
    let report: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["ok"], true);
    let checks = report["checks"].as_array().unwrap();
    assert_eq!(
        checks.len(),
        seed::commands::install::HOOK_EVENTS.len(),
        "every installed command: {out}"
    );
    assert!(
        checks
            .iter()
            .all(|c| c["ok"] == true && c["ms"].as_f64().unwrap() > 0.0)
    );
    let start = checks
        .iter()
        .find(|c| c["event"] == "SessionStart")
        .unwrap();
    assert!(
        start["stdout"]
            .as_str()
            .unwrap()
            .contains("[SEED SEQUENCE]")
    );
}

#[test]
fn doctor_checks_reply_shapes() {
    use seed::commands::doctor::check_reply;
    assert!(check_reply("PreToolUse", Some(0), "").is_empty());
    assert!(check_reply("Stop", Some(0), "{\"decision\":\"block\",\"reason\":\"x\"}").is_empty());
    assert_eq!(check_reply("PreToolUse", Some(2), "").len(), 1);
    assert_eq!(
        check_reply(
            "PreToolUse",
            Some(0),
            "{\"hookSpecificOutput\":{\"hookEventName\":\"Stop\"}}"
        )
        .len(),
        1
    );
    assert_eq!(check_reply("PreToolUse", Some(0), "{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"maybe\"}}").len(), 1);
    assert_eq!(check_reply("PreToolUse", Some(0), "not json").len(), 1);
}

#[test]
fn plugin_layout_matches_the_installed_events() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let plugin: Value = serde_json::from_str(
        &std::fs::read_to_string(root.join(".claude-plugin/plugin.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(plugin["name"], "seed");
    let hooks: Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("hooks/hooks.json")).unwrap())
            .unwrap();
    for (event, _) in seed::commands::install::HOOK_EVENTS {
        assert_eq!(
            hooks["hooks"][event][0]["hooks"][0]["command"],
            format!("seed hook {event}"),
            "{event}"
        );
    }
}

/// Your own handler in the same group as seed's stays, in its place, through re-installs;
/// seed's handler is updated where it is. A seed handler in a narrower group moves to one
/// that sees every event, and that group keeps its other handlers.
#[test]
fn your_handlers_next_to_seeds_are_kept() {
    let p = Project::new();
    let start = json!({ "hooks": {
        "PreToolUse": [
            { "matcher": "*", "hooks": [
                { "type": "command", "command": "audit-log" },
                { "type": "command", "command": "/old/seed hook PreToolUse # seed-managed", "timeout": 5 },
                { "type": "command", "command": "notify" }
            ] },
            { "matcher": "Bash", "hooks": [
                { "type": "command", "command": "seed hook PreToolUse # seed-managed" },
                { "type": "command", "command": "lint-bash" }
            ] }
        ],
        "Stop": [ { "hooks": [
            { "type": "command", "command": "seed hook Stop # seed-managed" },
            { "type": "command", "command": "say done" }
        ] } ]
    } });
    std::fs::write(settings(&p), start.to_string()).unwrap();
    for _ in 0..2 {
        assert_eq!(p.seed(&["install", "--project"]).0, 0);
        let v = read(&p);
        assert_eq!(
            v["hooks"]["PreToolUse"],
            json!([
                { "matcher": "*", "hooks": [
                    { "type": "command", "command": "audit-log" },
                    { "type": "command", "command": "seed hook PreToolUse # seed-managed", "timeout": 30 },
                    { "type": "command", "command": "notify" }
                ] },
                { "matcher": "Bash", "hooks": [
                    { "type": "command", "command": "lint-bash" }
                ] }
            ])
        );
        assert_eq!(
            v["hooks"]["Stop"],
            json!([ { "hooks": [
                { "type": "command", "command": "seed hook Stop # seed-managed", "timeout": 30 },
                { "type": "command", "command": "say done" }
            ] } ])
        );
    }
    // A seed handler only in a narrower group: moved to a group of its own.
    let narrow = json!({ "hooks": { "PostToolUse": [ { "matcher": "Edit", "hooks": [
        { "type": "command", "command": "seed hook PostToolUse # seed-managed" },
        { "type": "command", "command": "fmt" }
    ] } ] } });
    std::fs::write(settings(&p), narrow.to_string()).unwrap();
    assert_eq!(p.seed(&["install", "--project"]).0, 0);
    assert_eq!(
        read(&p)["hooks"]["PostToolUse"],
        json!([
            { "matcher": "Edit", "hooks": [ { "type": "command", "command": "fmt" } ] },
            { "matcher": "*", "hooks": [
                { "type": "command", "command": "seed hook PostToolUse # seed-managed", "timeout": 30 }
            ] }
        ])
    );
    // Uninstall takes seed's handlers and leaves yours.
    assert_eq!(p.seed(&["uninstall", "--project"]).0, 0);
    assert_eq!(
        read(&p)["hooks"]["PostToolUse"],
        json!([{ "matcher": "Edit", "hooks": [ { "type": "command", "command": "fmt" } ] }])
    );
}

/// A mistyped sequence would make every hook fail open, leaving the agent unguarded: install
/// refuses it, names the sequence meant, and writes nothing.
#[test]
fn an_unknown_sequence_is_refused_naming_the_closest() {
    let p = Project::new();
    std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(p.root())
        .status()
        .ok();
    for scope in ["--local", "--project", "--user"] {
        let (code, out, err) = p.seed(&["install", scope, "--sequence", "compund_intelligence"]);
        assert_ne!(code, 0, "{scope}: {out}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.starts_with("seed: --sequence compund_intelligence: no such sequence; did you mean `compound_intelligence`?"),
            "{scope}: {err}"
        );
        assert!(err.trim_end().ends_with("nothing was written"), "{err}");
    }
    // One bad name in a list is enough; a name nothing resembles lists what there is.
    let (code, _, err) = p.seed(&["install", "--local", "--sequence", "hope,tdd_x_y_z_w"]);
    assert_ne!(code, 0);
    assert!(
        err.contains("tdd_x_y_z_w: no such sequence (not a file; the sequences are: "),
        "{err}"
    );
    assert!(!err.contains("did you mean"), "{err}");
    // A sequence that does not load is refused too, with its own error.
    std::fs::write(p.root().join("broken.json"), "{ \"tool_transitions\": ").unwrap();
    let (code, _, err) = p.seed(&["install", "--local", "--sequence", "broken.json"]);
    assert_ne!(code, 0);
    assert!(err.contains("broken.json:"), "{err}");
    // Nothing was written anywhere.
    assert_eq!(
        std::fs::read_dir(p.root().join(".claude")).unwrap().count(),
        0
    );
    assert!(!p.root().join(".gitignore").exists());
    assert!(!p.dir.path().join("home/.claude").exists());
    // A path relative to the project, a project sequence and a built-in install.
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("sequences/starlog_initialization.json"),
        p.root().join("mine.json"),
    )
    .unwrap();
    p.add_sequence("team_flow");
    let (code, _, err) = p.seed(&[
        "install",
        "--local",
        "--sequence",
        "mine.json,team_flow,hope",
    ]);
    assert_eq!(code, 0, "{err}");
}

/// `--local` settings are personal: in a git repository the project's `.gitignore` gets them,
/// once; `--project` and a directory outside git get no `.gitignore`; uninstall leaves the line
/// (the file stays personal with or without seed in it).
#[test]
fn local_settings_go_into_the_gitignore_once() {
    let p = Project::new();
    let gitignore = p.root().join(".gitignore");
    // Not a git repository: nothing to ignore in.
    assert_eq!(p.seed(&["install", "--local"]).0, 0);
    assert!(!gitignore.exists());
    assert_eq!(p.seed(&["uninstall", "--local"]).0, 0);

    std::fs::create_dir(p.root().join(".git")).unwrap();
    std::fs::write(&gitignore, "target").unwrap();
    let (code, out, _) = p.seed(&["install", "--local", "--dry-run"]);
    assert_eq!(code, 0);
    assert!(out.contains("+.claude/settings.local.json"), "{out}");
    assert_eq!(std::fs::read_to_string(&gitignore).unwrap(), "target");

    let (code, out, _) = p.seed(&["install", "--local"]);
    assert_eq!(code, 0);
    assert!(
        out.contains("added .claude/settings.local.json to ") && out.contains(".gitignore"),
        "{out}"
    );
    let once = "target\n.claude/settings.local.json\n";
    assert_eq!(std::fs::read_to_string(&gitignore).unwrap(), once);
    // Idempotent.
    let (_, out, _) = p.seed(&["install", "--local", "--sequence", "hope"]);
    assert!(!out.contains(".gitignore"), "{out}");
    assert_eq!(std::fs::read_to_string(&gitignore).unwrap(), once);
    // Uninstall leaves the line.
    assert_eq!(p.seed(&["uninstall", "--local"]).0, 0);
    assert_eq!(std::fs::read_to_string(&gitignore).unwrap(), once);
    // A rule that already covers it is enough.
    std::fs::write(&gitignore, "/.claude/\n").unwrap();
    assert_eq!(p.seed(&["install", "--local"]).0, 0);
    assert_eq!(std::fs::read_to_string(&gitignore).unwrap(), "/.claude/\n");
    // The project's shared settings are meant to be committed.
    std::fs::remove_file(&gitignore).unwrap();
    assert_eq!(p.seed(&["install", "--project"]).0, 0);
    assert!(!gitignore.exists());
}

//! `seed install --mcp` / `seed uninstall --mcp` through the binary: the server entry in
//! `.mcp.json` starts the sequence the hooks enforce, only seed's entry is ever removed, and the
//! backups keep your files as they were before seed, through reinstalls and uninstalls.

use crate::support::mcp as mcp_common;
use crate::support::project as project_common;

use std::path::{Path, PathBuf};

use mcp_common::{Client, text};
use project_common::{Project, seed_commands};
use serde_json::{Value, json};

fn backup(file: &Path) -> PathBuf {
    PathBuf::from(format!("{}.seed-backup", file.display()))
}

fn read(file: &Path) -> String {
    std::fs::read_to_string(file).unwrap()
}

fn parse(file: &Path) -> Value {
    serde_json::from_str(&read(file)).unwrap()
}

fn ok(p: &Project, args: &[&str]) -> String {
    let (code, out, err) = p.seed_with_path(args, &[&p.seed_dir()]);
    assert_eq!(code, 0, "{args:?}: {out}{err}");
    out
}

/// `seed mcp` started as `.mcp.json` says (its arguments and environment; this build for
/// `seed`), with no session, no project configuration and no `SEED_SEQUENCE`.
fn start_entry(entry: &Value, home: &Path) -> Client {
    let args: Vec<&str> = entry["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    assert_eq!(args.first(), Some(&"mcp"), "{entry}");
    let env: Vec<(&str, Option<&str>)> = entry["env"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .chain([("SEED_SEQUENCE", None)])
        .collect();
    let mut c = Client::spawn_args(home, None, &env, &args[1..]);
    c.initialize();
    c
}

#[test]
fn the_server_speaks_of_the_sequence_the_hooks_enforce() {
    let p = Project::new();
    let home = p.dir.path().join("no-state-yet");
    ok(
        &p,
        &[
            "install",
            "--project",
            "--mcp",
            "--sequence",
            "starlog_initialization",
        ],
    );
    let hooks = seed_commands(&p.json(".claude/settings.json"));
    assert!(
        hooks
            .iter()
            .all(|c| c.contains(" --sequence starlog_initialization ")),
        "{hooks:?}"
    );
    let entry = p.json(".mcp.json")["mcpServers"]["seed"].clone();
    assert_eq!(
        entry["args"],
        json!(["mcp", "--sequence", "starlog_initialization"])
    );
    let mut c = start_entry(&entry, &home);
    let who = c.call("who_am_i", json!({}));
    assert!(
        text(&who).contains("\"starlog_initialization\""),
        "before any session, the hooks' sequence: {who}"
    );
    let what = text(&c.call("what_do_i_do", json!({})));
    assert!(what.contains("Do next: call mcp__starlog__check"), "{what}");

    // Reinstalled without a sequence: neither face names one.
    ok(&p, &["install", "--project", "--mcp"]);
    let entry = p.json(".mcp.json")["mcpServers"]["seed"].clone();
    assert_eq!(entry["args"], json!(["mcp"]));
    let mut c = start_entry(&entry, &home);
    let who = text(&c.call("who_am_i", json!({})));
    assert!(who.starts_with("No sequence is active."), "{who}");
}

/// Install, reinstall with another sequence, uninstall: each backup still holds your file as it
/// was before seed touched it, never seed's own version.
#[test]
fn backups_keep_the_original_through_reinstall_and_uninstall() {
    let p = Project::new();
    let settings = p.root().join(".claude/settings.json");
    let mcp = p.root().join(".mcp.json");
    let settings_original = "{\n  \"model\": \"opus\"\n}\n";
    let mcp_original = "{\"mcpServers\": {\"github\": {\"command\": \"gh-mcp\"}}}\n";
    std::fs::write(&settings, settings_original).unwrap();
    std::fs::write(&mcp, mcp_original).unwrap();

    let originals = |when: &str| {
        assert_eq!(read(&backup(&settings)), settings_original, "{when}");
        assert_eq!(read(&backup(&mcp)), mcp_original, "{when}");
    };
    ok(
        &p,
        &[
            "install",
            "--project",
            "--mcp",
            "--sequence",
            "waypoint_journey",
        ],
    );
    originals("after the install");
    ok(
        &p,
        &[
            "install",
            "--project",
            "--mcp",
            "--sequence",
            "giint_workflow",
        ],
    );
    assert_eq!(
        parse(&mcp)["mcpServers"]["seed"]["args"],
        json!(["mcp", "--sequence", "giint_workflow"]),
        "the reinstall did change the files"
    );
    originals("after a reinstall with another sequence");
    ok(&p, &["uninstall", "--project", "--mcp"]);
    originals("after the uninstall");
    assert_eq!(
        parse(&settings),
        serde_json::from_str::<Value>(settings_original).unwrap()
    );
    assert_eq!(
        parse(&mcp),
        serde_json::from_str::<Value>(mcp_original).unwrap()
    );

    // Your edits after the uninstall are yours: the next install backs them up.
    let edited = "{\"model\": \"sonnet\"}\n";
    std::fs::write(&settings, edited).unwrap();
    ok(&p, &["install", "--project"]);
    assert_eq!(read(&backup(&settings)), edited);
}

/// A file that already holds seed's entries and has no backup (an older seed, or a teammate's
/// install, wrote it) is seed's own version, never backed up: a backup is your file as it was
/// without seed.
#[test]
fn a_file_seed_already_changed_is_never_backed_up() {
    let p = Project::new();
    let mcp = p.root().join(".mcp.json");
    let seeded = "{\"mcpServers\": {\"seed\": {\"command\": \"/old/seed\", \"args\": [\"mcp\"], \"env\": {\"SEED_MANAGED\": \"1\"}}}}\n";
    std::fs::write(&mcp, seeded).unwrap();
    ok(&p, &["install", "--project", "--mcp"]);
    ok(&p, &["install", "--project", "--mcp", "--sequence", "hope"]);
    assert!(!backup(&mcp).exists());
    // Nothing but seed's server was ever in it: the uninstall removes the file.
    ok(&p, &["uninstall", "--project", "--mcp"]);
    assert!(!mcp.exists());
}

#[test]
fn uninstall_mcp_removes_seeds_server_and_nothing_else() {
    let p = Project::new();
    let mcp = p.root().join(".mcp.json");
    // No `.mcp.json`: nothing to remove, and no file is created.
    let out = ok(&p, &["uninstall", "--project", "--mcp"]);
    assert!(out.contains("no change"), "{out}");
    assert!(!mcp.exists());

    let theirs = json!({"command": "gh-mcp", "env": {"TOKEN": "x"}});
    std::fs::write(
        &mcp,
        json!({"mcpServers": {"github": theirs}, "other": 1}).to_string(),
    )
    .unwrap();
    ok(&p, &["install", "--project", "--mcp"]);
    let installed = parse(&mcp);
    assert_eq!(installed["mcpServers"]["github"], theirs);
    assert_eq!(installed["mcpServers"]["seed"]["env"]["SEED_MANAGED"], "1");

    let dry = ok(&p, &["uninstall", "--project", "--mcp", "--dry-run"]);
    assert!(dry.contains("-    \"seed\": {"), "{dry}");
    assert_eq!(parse(&mcp), installed, "a dry run writes nothing");

    let out = ok(&p, &["uninstall", "--project", "--mcp"]);
    assert!(
        out.contains(&format!("removed seed's MCP server from {}", mcp.display())),
        "{out}"
    );
    assert_eq!(
        parse(&mcp),
        json!({"mcpServers": {"github": theirs}, "other": 1})
    );
    assert!(
        !p.root().join(".claude/settings.json").exists(),
        "the hooks went too, with the settings file seed created for them"
    );
    // A server of yours called `seed` is never removed.
    let yours = json!({"mcpServers": {"seed": {"command": "my-seed"}}});
    std::fs::write(&mcp, yours.to_string()).unwrap();
    let out = ok(&p, &["uninstall", "--project", "--mcp"]);
    assert!(out.contains("no change"), "{out}");
    assert_eq!(parse(&mcp), yours);
}

/// The plugin layout ships the server: `.claude-plugin/plugin.json` starts `seed mcp`, which
/// answers the handshake and lists the eight tools.
#[test]
fn the_plugin_ships_the_server() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let plugin = parse(&root.join(".claude-plugin/plugin.json"));
    let entry = &plugin["mcpServers"]["seed"];
    assert_eq!(
        entry["command"], "seed",
        "from PATH, like the hooks: {plugin}"
    );
    assert_eq!(entry["args"], json!(["mcp"]));
    let home = tempfile::tempdir().unwrap();
    let mut c = start_entry(entry, home.path());
    let list = c.request("tools/list", json!({}));
    let names: Vec<&str> = list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(names, seed::mcp::specs::NAMES);
}

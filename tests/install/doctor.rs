//! `seed doctor`: all good only when seed is installed and every installed command does its
//! job — a hook that fails open (exit 0, nothing on stdout, `seed: …` on stderr) is a failure
//! — and, when `.mcp.json` has seed's server, when that server answers `initialize`.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::support::project as project_common;
use project_common::{Project, STARLOG_SERVERS, bin};

fn install(p: &Project, extra: &[&str]) {
    let b = bin();
    let mut args = vec!["install", "--local", "--bin", b.to_str().unwrap()];
    args.extend_from_slice(extra);
    let (code, out, err) = p.seed_with_path(&args, &[]);
    assert_eq!(code, 0, "{out}{err}");
}

fn doctor(p: &Project) -> (i32, Value, String) {
    let (code, out, err) = p.seed_with_path(&["doctor", "--json"], &[]);
    let v = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}{err}"));
    let (_, text, _) = p.seed_with_path(&["doctor"], &[]);
    (code, v, text)
}

#[test]
fn nothing_installed_is_a_failure() {
    let p = Project::new();
    let (code, report, text) = doctor(&p);
    assert_eq!(code, 1, "{report}");
    assert_eq!(report["installed"], false);
    assert!(text.contains("✗ seed is not installed"), "{text}");
    assert!(
        text.trim_end().ends_with("doctor: problems found"),
        "{text}"
    );
}

#[test]
fn a_hook_that_fails_open_is_a_failure() {
    let p = Project::new();
    p.provide_servers(STARLOG_SERVERS);
    install(&p, &["--sequence", "starlog_initialization"]);
    assert_eq!(doctor(&p).0, 0, "installed and working");
    // A project configuration the hook cannot read: every hook answers nothing (fail-open)
    // and says why on stderr.
    std::fs::write(p.root().join(".seed.toml"), "sequence = [\n").unwrap();
    let (code, report, text) = doctor(&p);
    assert_eq!(code, 1);
    let checks = report["checks"].as_array().unwrap();
    assert!(!checks.is_empty());
    for c in checks {
        assert_eq!(c["ok"], false, "{c}");
        let problem = c["problems"][0].as_str().unwrap();
        assert!(
            problem.starts_with("seed failed: ") && problem.contains(".seed.toml:1:"),
            "{problem}"
        );
    }
    assert!(text.contains("seed failed: "), "{text}");
    // An unknown key is only a warning: the hook still works.
    std::fs::write(p.root().join(".seed.toml"), "newer_knob = 1\n").unwrap();
    let (code, report, _) = doctor(&p);
    assert_eq!(code, 0, "{report}");
}

/// Every installed command is run with a payload of its own event, each matcher group too: a
/// typo in the PostToolUse command's `--sequence` or a flag `seed hook` does not take on Stop
/// fails exactly that check, and doctor exits 1.
#[test]
fn every_installed_command_is_checked_for_its_own_event() {
    let p = Project::new();
    p.provide_servers(STARLOG_SERVERS);
    install(&p, &["--sequence", "starlog_initialization"]);
    let path = p.root().join(".claude/settings.local.json");
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let command = |v: &mut Value, event: &str| -> String {
        v["hooks"][event][0]["hooks"][0]["command"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let post =
        command(&mut v, "PostToolUse").replace("starlog_initialization", "starlog_initialisation");
    let stop = command(&mut v, "Stop").replace(" Stop ", " --verbose Stop ");
    v["hooks"]["PostToolUse"][0]["hooks"][0]["command"] = post.clone().into();
    v["hooks"]["Stop"][0]["hooks"][0]["command"] = stop.clone().into();
    // A second seed handler, in a group for Bash only: it is run too.
    let bash = command(&mut v, "PreToolUse");
    v["hooks"]["PreToolUse"].as_array_mut().unwrap().push(
        serde_json::json!({ "matcher": "Bash", "hooks": [{ "type": "command", "command": bash }] }),
    );
    std::fs::write(&path, v.to_string()).unwrap();

    let (code, report, text) = doctor(&p);
    assert_eq!(code, 1, "{report}");
    let checks = report["checks"].as_array().unwrap();
    assert_eq!(checks.len(), seed::commands::install::HOOK_EVENTS.len() + 1);
    let failed: Vec<(&str, &str)> = checks
        .iter()
        .filter(|c| c["ok"] == false)
        .map(|c| {
            (
                c["event"].as_str().unwrap(),
                c["problems"][0].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(failed.len(), 2, "{failed:?}");
    assert!(
        failed[0].0 == "PostToolUse" && failed[0].1.contains("starlog_initialisation"),
        "{failed:?}"
    );
    assert!(
        failed[1].0 == "Stop" && failed[1].1.contains("unknown option `--verbose`"),
        "{failed:?}"
    );
    assert!(
        checks
            .iter()
            .any(|c| c["event"] == "PreToolUse" && c["matcher"] == "Bash" && c["ok"] == true),
        "{report}"
    );
    assert!(text.contains("✗ local PostToolUse [*]"), "{text}");
    assert!(text.contains(&format!("  {stop}")), "{text}");
    assert!(
        text.trim_end().ends_with("doctor: problems found"),
        "{text}"
    );
}

#[test]
fn the_mcp_server_is_started_and_answers_initialize() {
    let p = Project::new();
    let b = bin();
    let (code, out, err) = p.seed_with_path(
        &[
            "install",
            "--project",
            "--mcp",
            "--bin",
            b.to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(code, 0, "{out}{err}");
    let (code, report, text) = doctor(&p);
    assert_eq!(code, 0, "{report}");
    assert_eq!(report["mcp"]["ok"], true, "{report}");
    assert!(report["mcp"]["ms"].as_f64().unwrap() > 0.0);
    assert!(text.contains("✓ mcp  initialize"), "{text}");
    // A server that cannot start fails the check.
    let (code, _, err) = p.seed_with_path(
        &[
            "install",
            "--project",
            "--mcp",
            "--bin",
            "/nonexistent/seed",
        ],
        &[],
    );
    assert_eq!(code, 0, "{err}");
    let (code, report, _) = doctor(&p);
    assert_eq!(code, 1);
    assert_eq!(report["mcp"]["ok"], false);
    assert!(
        report["mcp"]["problems"][0]
            .as_str()
            .unwrap()
            .contains("cannot start")
    );
}

/// Installed as a plugin (no settings file entries): the plugin's `seed hook EVENT` is run
/// from PATH.
#[cfg(unix)]
#[test]
fn an_enabled_plugin_counts_as_installed() {
    let p = Project::new();
    std::fs::write(
        p.root().join(".claude/settings.json"),
        "{\"enabledPlugins\": {\"seed@local\": true}}",
    )
    .unwrap();
    let bin_dir = p.dir.path().join("bin");
    std::fs::create_dir_all(&bin_dir).unwrap();
    std::os::unix::fs::symlink(bin(), bin_dir.join("seed")).unwrap();
    let sh_dirs: Vec<PathBuf> = ["/bin", "/usr/bin"].iter().map(PathBuf::from).collect();
    let mut path: Vec<&Path> = vec![&bin_dir];
    path.extend(sh_dirs.iter().map(PathBuf::as_path));
    let (code, out, err) = p.seed_with_path(&["doctor", "--json"], &path);
    let report: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(code, 0, "{report}{err}");
    assert_eq!(
        (report["installed"].clone(), report["plugin"].clone()),
        (Value::Bool(true), Value::Bool(true))
    );
    assert_eq!(
        report["checks"].as_array().unwrap().len(),
        seed::commands::install::HOOK_EVENTS.len()
    );
}

/// Every file under `dir` with its content (directories as `/`), for before/after checks.
fn tree(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            let rel = p.strip_prefix(dir).unwrap().to_path_buf();
            if e.file_type().unwrap().is_dir() {
                out.push((rel, b"/".to_vec()));
                todo.push(p);
            } else {
                out.push((rel, std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

/// The hooks run against the state directory they will really use (not a temporary one), under
/// a throwaway session whose files are removed afterwards: the directory ends as it was.
#[test]
fn doctor_uses_the_real_state_directory_and_leaves_it_as_it_was() {
    let p = Project::new();
    p.provide_servers(STARLOG_SERVERS);
    install(&p, &["--sequence", "starlog_initialization"]);
    let state = p.dir.path().join("state");
    std::fs::create_dir_all(state.join("sessions/real-session")).unwrap();
    std::fs::write(state.join("sessions/real-session/log.jsonl"), "{}\n").unwrap();
    std::fs::write(state.join("allowed_tools.seed"), "SomeoneElse\n").unwrap();
    // seed 000's tool history: the canned PostToolUse runs append to it, and their lines go.
    std::fs::write(state.join("state.log"), "t0\treal-session\tRead\tok\n").unwrap();
    let before = tree(&state);
    let (code, out, err) = p.seed_with_env(&["doctor", "--json"], &[], &[("SEED_HOME", &state)]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(
        tree(&state),
        before,
        "doctor left the state directory as it was"
    );

    // A fresh state directory is made for the runs and removed again.
    let fresh = p.dir.path().join("fresh");
    let (code, out, err) = p.seed_with_env(&["doctor", "--json"], &[], &[("SEED_HOME", &fresh)]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(!fresh.exists(), "{:?}", tree(&fresh));

    // A state directory the hook cannot use is a failure doctor reports.
    let file = p.dir.path().join("not-a-dir");
    std::fs::write(&file, "").unwrap();
    let (code, out, _) = p.seed_with_env(&["doctor", "--json"], &[], &[("SEED_HOME", &file)]);
    let report: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(code, 1, "{report}");
    let problem = report["checks"][0]["problems"][0].as_str().unwrap();
    assert!(problem.contains("not a directory"), "{problem}");
    assert_eq!(std::fs::read(&file).unwrap(), b"");
}

/// A hook command the shell cannot find exits 127: the report says so in words, as a number.
#[cfg(unix)]
#[test]
fn a_hook_command_that_is_not_found_reports_its_exit_code() {
    let p = Project::new();
    std::fs::write(
        p.root().join(".claude/settings.json"),
        "{\"enabledPlugins\": {\"seed@local\": true}}",
    )
    .unwrap();
    // `seed` is not on this PATH: the plugin's `seed hook EVENT` is not found.
    let sh_dirs: Vec<PathBuf> = ["/bin", "/usr/bin"].iter().map(PathBuf::from).collect();
    let path: Vec<&Path> = sh_dirs.iter().map(PathBuf::as_path).collect();
    let (code, out, _) = p.seed_with_path(&["doctor", "--json"], &path);
    assert_eq!(code, 1, "{out}");
    let (_, text, _) = p.seed_with_path(&["doctor"], &path);
    assert!(text.contains("exit code 127, expected 0"), "{text}");
    assert!(!text.contains("Some("), "{text}");
    assert!(
        text.contains("fix: the plugin's hooks run `seed` from PATH"),
        "{text}"
    );
}

/// Ten hooks that fail the same way (installed with `seed` on PATH, then run by a shell that
/// finds none) are told once, with the fix: put `seed` on PATH, or pin this one with `--bin`,
/// keeping the installed sequence.
#[test]
fn identical_failures_are_told_once_with_the_fix() {
    let p = Project::new();
    p.provide_servers(STARLOG_SERVERS);
    let (code, _, err) = p.seed(&["install", "--local", "--sequence", "starlog_initialization"]);
    assert_eq!(code, 0, "{err}");
    let (code, report, text) = doctor(&p);
    assert_eq!(code, 1, "{report}");
    let events = seed::commands::install::HOOK_EVENTS.len();
    assert_eq!(
        text.matches("exit code 127, expected 0").count(),
        1,
        "one line for the ten failures: {text}"
    );
    assert!(
        text.contains(&format!(
            "✗ local {events} hooks failed the same way: SessionStart, "
        )),
        "{text}"
    );
    let pinned = format!(
        "`seed install --local --sequence starlog_initialization --bin {}`",
        bin().display()
    );
    let fix = text
        .lines()
        .find(|l| l.trim_start().starts_with("fix: "))
        .unwrap_or_else(|| panic!("no fix line: {text}"));
    assert!(
        fix.contains("put it on PATH") && fix.ends_with(&pinned),
        "{fix}"
    );
    assert!(
        text.trim_end().ends_with("doctor: problems found"),
        "{text}"
    );
    // Each failed check carries the fix in JSON too.
    for c in report["checks"].as_array().unwrap() {
        assert!(c["fix"].as_str().unwrap().ends_with(&pinned), "{c}");
    }
    // Followed, the fix works.
    let (code, _, _) = p.seed_with_path(
        &[
            "install",
            "--local",
            "--sequence",
            "starlog_initialization",
            "--bin",
            bin().to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(code, 0);
    assert_eq!(doctor(&p).0, 0);
}

/// A sequence the configuration names is checked where it is written: a typo in `.seed.toml`
/// fails doctor, names the file, line and column, and the sequence meant.
#[test]
fn a_mistyped_sequence_in_the_project_configuration_names_the_one_meant() {
    let p = Project::new();
    install(&p, &[]);
    std::fs::write(
        p.root().join(".seed.toml"),
        "enforcement = \"advise\"\nsequence = \"compund_intelligence\"\n",
    )
    .unwrap();
    let (code, report, text) = doctor(&p);
    assert_eq!(code, 1, "{report}");
    let seq = &report["sequences"][0];
    assert_eq!(seq["ok"], false, "{report}");
    assert_eq!(seq["sequence"], "compund_intelligence");
    assert!(
        seq["at"].as_str().unwrap().ends_with(".seed.toml:2:1"),
        "{seq}"
    );
    assert!(
        seq["problem"]
            .as_str()
            .unwrap()
            .contains("did you mean `compound_intelligence`?"),
        "{seq}"
    );
    assert!(
        text.contains("fix: write `compound_intelligence` instead of `compund_intelligence` at "),
        "{text}"
    );
    // The hooks fail the same way: one group, sent back to the sequence check.
    assert_eq!(
        text.matches("hooks failed the same way").count(),
        1,
        "{text}"
    );
    std::fs::write(
        p.root().join(".seed.toml"),
        "sequence = \"compound_intelligence\"\n",
    )
    .unwrap();
    p.provide_servers(&[
        "seed",
        "starlog",
        "starship",
        "giint",
        "waypoint",
        "carton",
        "heaven-subagent",
    ]);
    let (code, report, text) = doctor(&p);
    assert_eq!(code, 0, "{report}");
    assert!(
        text.contains("✓ sequence compound_intelligence (from "),
        "{text}"
    );
}

/// Seed 000's tier 2 reads the HEAVEN systems' files under `HEAVEN_DATA_DIR`: doctor says in
/// one line when an installed sequence's readers need it and it is unset.
#[test]
fn doctor_says_when_tier_2_cannot_apply_without_heaven_data_dir() {
    let p = Project::new();
    p.provide_servers(&["waypoint"]);
    install(&p, &["--sequence", "waypoint_journey"]);
    let (_, report, text) = doctor(&p);
    let line = "deep state (tier 2) never applies: HEAVEN_DATA_DIR is not set, so reader waypoint_status reads nothing (set it to where the HEAVEN systems keep their state)";
    assert_eq!(
        report["servers"]["deep_state"][0]["line"], line,
        "{report:#}"
    );
    assert!(
        text.lines()
            .any(|l| l == format!("! sequence waypoint_journey: {line}")),
        "{text}"
    );
    let heaven = p.dir.path().join("heaven");
    let (_, out, _) = p.seed_with_env(&["doctor", "--json"], &[], &[("HEAVEN_DATA_DIR", &heaven)]);
    let v: Value = serde_json::from_str(&out).expect("json");
    assert_eq!(v["servers"]["deep_state"], serde_json::json!([]), "{v:#}");
}

//! `seed init`: from a project with nothing to an installed, checked sequence, the project's
//! own copy of it, and the command that opens the dashboard; run again, nothing changes.

use crate::support::project::Project;

fn lines(out: &str) -> Vec<&str> {
    out.lines().collect()
}

#[test]
fn init_copies_names_installs_checks_and_says_how_to_watch() {
    let p = Project::new();
    let (code, out, err) = p.seed(&["init", "--sequence", "tdd"]);
    assert_eq!(code, 0, "{out}{err}");
    let root = p.root();
    let seqs = root.join(".seed").join("sequences");
    // The copy is the built-in's, for the user to edit; the project's file names it.
    for f in ["tdd.toml", "tdd.mmd"] {
        let builtin = seed::dialects::EMBEDDED
            .iter()
            .find(|(n, _)| *n == f)
            .unwrap()
            .1;
        assert_eq!(
            std::fs::read_to_string(seqs.join(f)).unwrap(),
            builtin,
            "{f}"
        );
    }
    let config = std::fs::read_to_string(root.join(".seed.toml")).unwrap();
    assert!(config.ends_with("sequence = \"tdd\"\n"), "{config}");
    let settings = std::fs::read_to_string(root.join(".claude/settings.local.json")).unwrap();
    assert!(settings.contains("seed hook PreToolUse"), "{settings}");
    assert!(
        !settings.contains("--sequence"),
        "the hooks read .seed.toml: {settings}"
    );
    assert!(
        !root.join(".mcp.json").exists(),
        "tdd calls none of seed's tools"
    );
    let l = lines(&out);
    assert!(l[0].starts_with("sequence:  tdd — Test first"), "{out}");
    assert!(out.contains("copied:    ") && out.contains("(edit it: the hooks run this copy)"));
    assert!(out.contains("installed seed's hooks in "), "{out}");
    assert!(out.contains("doctor: all good"), "{out}");
    assert_eq!(
        l.last(),
        Some(&"open the dashboard beside Claude Code:  seed tui")
    );

    // Again: nothing changes, and it says so.
    let (code, again, err) = p.seed(&["init", "--sequence", "tdd"]);
    assert_eq!(code, 0, "{again}{err}");
    assert_eq!(again.matches("no change: ").count(), 4, "{again}");
    assert_eq!(
        std::fs::read_to_string(root.join(".seed.toml")).unwrap(),
        config
    );
}

#[test]
fn an_edited_copy_and_the_rest_of_the_config_are_kept() {
    let p = Project::new();
    let root = p.root();
    let seqs = root.join(".seed").join("sequences");
    std::fs::create_dir_all(&seqs).unwrap();
    let builtin = seed::dialects::EMBEDDED
        .iter()
        .find(|(n, _)| *n == "safe_git.toml")
        .unwrap()
        .1;
    let edited = builtin.replace("enforcement = \"advise\"", "enforcement = \"enforce\"");
    std::fs::write(seqs.join("safe_git.toml"), &edited).unwrap();
    std::fs::write(
        root.join(".seed.toml"),
        "fail = \"closed\"\nsequences = [\n  \"tdd\",\n  \"hope\",\n]\n\n[stop]\nmax_blocks = 1\n",
    )
    .unwrap();
    let (code, out, err) = p.seed(&["init", "--sequence", "safe_git"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("safe_git.toml (your edited copy)"), "{out}");
    assert_eq!(
        std::fs::read_to_string(seqs.join("safe_git.toml")).unwrap(),
        edited
    );
    assert_eq!(
        std::fs::read_to_string(root.join(".seed.toml")).unwrap(),
        "fail = \"closed\"\nsequence = \"safe_git\"\n\n[stop]\nmax_blocks = 1\n"
    );
}

#[test]
fn dry_run_writes_nothing() {
    let p = Project::new();
    let (code, out, err) = p.seed(&["init", "--sequence", "research_first", "--dry-run"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("would copy: "), "{out}");
    assert!(out.contains("+sequence = \"research_first\""), "{out}");
    assert!(out.contains("--dry-run: nothing was written, and doctor did not run"));
    let root = p.root();
    assert!(!root.join(".seed").exists() && !root.join(".seed.toml").exists());
    assert!(!root.join(".claude/settings.local.json").exists());
}

#[test]
fn a_sequence_that_calls_seeds_tools_gets_its_server() {
    let p = Project::new();
    let (code, out, err) = p.seed(&["init", "--sequence", "compound_intelligence", "--project"]);
    // Doctor may find the sequence's other servers missing; the MCP server is registered.
    assert!(code == 0 || code == 1, "{out}{err}");
    let mcp = std::fs::read_to_string(p.root().join(".mcp.json")).unwrap();
    assert!(mcp.contains("\"seed\""), "{mcp}");
}

#[test]
fn without_a_terminal_or_a_known_name_it_says_what_to_do_in_one_line() {
    let p = Project::new();
    let (code, out, err) = p.seed(&["init"]);
    assert_eq!((code, out.as_str()), (1, ""));
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("seed: pick a sequence with --sequence NAME (not a terminal, so no list to pick from): plan_then_build, tdd, safe_git, research_first, verify_before_done, "),
        "{err}"
    );
    let (code, _, err) = p.seed(&["init", "--sequence", "tdf"]);
    assert_eq!(code, 1);
    assert!(
        err.starts_with("seed: tdf: no such sequence; did you mean `tdd`?"),
        "{err}"
    );
    let (code, _, err) = p.seed(&["init", "--sequence", "/etc/passwd"]);
    assert_eq!(code, 1);
    assert_eq!(
        err.trim(),
        "seed: --sequence \"/etc/passwd\": name a sequence (`seed sequences` lists them), not a file"
    );
    // A broken .seed.toml is refused and left as it was.
    std::fs::write(p.root().join(".seed.toml"), "sequence = [").unwrap();
    let (code, _, err) = p.seed(&["init", "--sequence", "tdd"]);
    assert_eq!(code, 1);
    assert!(err.starts_with("seed: .seed.toml does not parse"), "{err}");
    assert_eq!(
        std::fs::read_to_string(p.root().join(".seed.toml")).unwrap(),
        "sequence = ["
    );
}

/// `--enforcement enforce` is the whole step from advice to refusal: `.seed.toml` says it for
/// every sequence, and the hooks refuse what the sequence forbids; run again, nothing changes,
/// and another mode replaces the line.
#[test]
fn enforcement_is_one_flag_and_the_hooks_obey_it() {
    let p = Project::new();
    let (code, out, err) = p.seed(&["init", "--sequence", "tdd", "--enforcement", "enforce"]);
    assert_eq!(code, 0, "{out}{err}");
    let root = p.root();
    let config = std::fs::read_to_string(root.join(".seed.toml")).unwrap();
    assert!(
        config.ends_with("sequence = \"tdd\"\nenforcement = \"enforce\"\n"),
        "{config}"
    );
    let edit = |state: &std::path::Path| {
        let payload = serde_json::json!({
            "session_id": "s1", "cwd": root, "hook_event_name": "PreToolUse",
            "tool_name": "Edit", "tool_use_id": "t1",
            "tool_input": { "file_path": root.join("src/lib.rs"), "old_string": "a", "new_string": "b" },
        });
        let o = assert_cmd::Command::cargo_bin("seed")
            .unwrap()
            .args(["hook", "PreToolUse"])
            .env("SEED_HOME", state)
            .env("CLAUDE_PROJECT_DIR", &root)
            .env("SEED_CONFIG_DIR", state.join("no-config"))
            .env_remove("SEED_ENFORCEMENT")
            .env_remove("SEED_SEQUENCE")
            .current_dir(&root)
            .write_stdin(payload.to_string())
            .output()
            .unwrap();
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap_or_default();
        v["hookSpecificOutput"]["permissionDecision"].clone()
    };
    let state = tempfile::tempdir().unwrap();
    assert_eq!(edit(state.path()), "deny");

    let (code, again, _) = p.seed(&["init", "--sequence", "tdd", "--enforcement", "enforce"]);
    assert_eq!(code, 0);
    assert!(
        again.contains("already says sequence = \"tdd\", enforcement = \"enforce\""),
        "{again}"
    );
    let (code, out, err) = p.seed(&["init", "--sequence", "tdd", "--enforcement", "advise"]);
    assert_eq!(code, 0, "{out}{err}");
    let config = std::fs::read_to_string(root.join(".seed.toml")).unwrap();
    assert_eq!(config.matches("enforcement = ").count(), 1, "{config}");
    assert!(config.ends_with("enforcement = \"advise\"\n"), "{config}");
    let state = tempfile::tempdir().unwrap();
    assert_eq!(
        edit(state.path()),
        serde_json::Value::Null,
        "advise lets it through"
    );
    let (code, _, err) = p.seed(&["init", "--sequence", "tdd", "--enforcement", "always"]);
    assert_eq!(code, 2, "{err}");
}

use super::*;
use crate::engine::ir::Enforcement;

fn env_of(pairs: Vec<(&'static str, String)>) -> impl Fn(&str) -> Option<String> {
    move |k: &str| pairs.iter().find(|(n, _)| *n == k).map(|(_, v)| v.clone())
}

const SEQ: &str = "starlog_initialization";

#[test]
fn layers_and_sequence_choice() {
    let t = tempfile::tempdir().unwrap();
    let user_dir = t.path().join("user");
    let proj = t.path().join("proj");
    let sub = proj.join("src/deep");
    std::fs::create_dir_all(&user_dir).unwrap();
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::write(
        user_dir.join("config.toml"),
        "sequence = \"user_seq\"\nfail = \"closed\"\ninject_every = 3\n[overrides.x]\nenforcement = \"observe\"\n",
    )
    .unwrap();
    let env = env_of(vec![("SEED_CONFIG_DIR", user_dir.display().to_string())]);
    // No project file: the user's sequence and settings.
    let c = load(std::slice::from_ref(&sub), &env, &Flags::default()).unwrap();
    assert_eq!(c.sequences, ["user_seq"]);
    assert_eq!((c.fail, c.inject_every), (Some(FailMode::Closed), 3));
    assert_eq!(c.project_root, None);

    std::fs::write(
        proj.join(PROJECT_FILE),
        "sequences = [\"a\", \"seqs/b.json\"]\nenforcement = \"advise\"\n[overrides.x]\noff_path = \"deny\"\n",
    )
    .unwrap();
    let c = load(std::slice::from_ref(&sub), &env, &Flags::default()).unwrap();
    assert_eq!(
        c.sequences,
        [
            "a".to_string(),
            proj.join("seqs/b.json").display().to_string()
        ]
    );
    assert_eq!(c.fail, Some(FailMode::Closed));
    assert_eq!(c.settings_for("y").enforcement, Some(Enforcement::Advise));
    // The project's own keys beat the user's per-sequence section.
    assert_eq!(c.settings_for("x").enforcement, Some(Enforcement::Advise));
    assert_eq!(c.settings_for("x").off_path, Some(OffPathPolicy::Deny));
    assert_eq!(c.project_root.as_deref(), Some(proj.as_path()));
    assert_eq!(c.files.len(), 2);

    // SEED_SEQUENCE loses to the project's choice, wins over the user's.
    let env2 = env_of(vec![
        ("SEED_CONFIG_DIR", user_dir.display().to_string()),
        ("SEED_SEQUENCE", "e1, e2".into()),
    ]);
    let c = load(std::slice::from_ref(&sub), &env2, &Flags::default()).unwrap();
    assert_eq!(c.sequences[0], "a");
    let c = load(std::slice::from_ref(&user_dir), &env2, &Flags::default()).unwrap();
    assert_eq!(c.sequences, ["e1", "e2"]);
    let flags = Flags {
        sequence: Some("f".into()),
        fail: Some("open".into()),
        enforcement: None,
    };
    let c = load(&[sub], &env2, &flags).unwrap();
    assert_eq!(
        (c.sequences.as_slice(), c.fail),
        (&["f".to_string()][..], Some(FailMode::Open))
    );
}

/// The levels a setting can come from, lowest first.
const LEVELS: [&str; 6] = [
    "user file",
    "user [overrides]",
    "project file",
    "project [overrides]",
    "SEED_ENFORCEMENT",
    "--enforcement",
];

/// Load with `enforcement` set at each level of `set` (`Some(value)`), none elsewhere.
fn enforcement_with(set: &[Option<&str>; 6]) -> Option<Enforcement> {
    let t = tempfile::tempdir().unwrap();
    let user_dir = t.path().join("user");
    let proj = t.path().join("proj");
    std::fs::create_dir_all(&user_dir).unwrap();
    std::fs::create_dir_all(&proj).unwrap();
    let file = |wide: Option<&str>, per: Option<&str>| {
        let mut text = String::new();
        if let Some(v) = wide {
            text.push_str(&format!("enforcement = \"{v}\"\n"));
        }
        // Another sequence's section never applies.
        text.push_str("[overrides.other]\nenforcement = \"observe\"\n");
        if let Some(v) = per {
            text.push_str(&format!("[overrides.{SEQ}]\nenforcement = \"{v}\"\n"));
        }
        text
    };
    std::fs::write(user_dir.join("config.toml"), file(set[0], set[1])).unwrap();
    std::fs::write(proj.join(PROJECT_FILE), file(set[2], set[3])).unwrap();
    let mut vars = vec![("SEED_CONFIG_DIR", user_dir.display().to_string())];
    if let Some(v) = set[4] {
        vars.push(("SEED_ENFORCEMENT", v.to_string()));
    }
    let flags = Flags {
        enforcement: set[5].map(String::from),
        ..Flags::default()
    };
    let c = load(&[proj], &env_of(vars), &flags).unwrap();
    let mut chart = crate::dialects::builtin(SEQ).unwrap().unwrap().chart;
    chart.settings.enforcement = Enforcement::Enforce;
    c.apply(&mut chart);
    let applied = chart.settings.enforcement;
    let resolved = c.settings_for(SEQ).enforcement;
    assert_eq!(applied, resolved.unwrap_or(Enforcement::Enforce));
    resolved
}

/// flags > env > project (per-sequence over project-wide) > user (likewise) > defaults:
/// whichever levels are set, the highest one decides, for every combination.
#[test]
fn precedence_table_highest_level_wins() {
    for mask in 0u32..(1 << LEVELS.len()) {
        let top = (0..LEVELS.len()).rev().find(|i| mask & (1 << i) != 0);
        for (winner, loser, expected) in [
            ("observe", "advise", Enforcement::Observe),
            ("advise", "observe", Enforcement::Advise),
        ] {
            let mut set = [None; 6];
            for (i, slot) in set.iter_mut().enumerate() {
                if mask & (1 << i) != 0 {
                    *slot = Some(if Some(i) == top { winner } else { loser });
                }
            }
            let got = enforcement_with(&set);
            let levels: Vec<&str> = (0..6)
                .filter(|i| mask & (1 << i) != 0)
                .map(|i| LEVELS[i])
                .collect();
            assert_eq!(
                got,
                top.map(|_| expected),
                "set at {levels:?}, highest {:?}",
                top.map(|i| LEVELS[i])
            );
        }
    }
}

#[test]
fn env_and_flags_beat_a_per_sequence_override_for_every_setting() {
    let t = tempfile::tempdir().unwrap();
    std::fs::write(
        t.path().join(PROJECT_FILE),
        format!(
            "fail = \"open\"\n[overrides.{SEQ}]\nenforcement = \"advise\"\noff_path = \"warn\"\n[overrides.{SEQ}.stop]\nmax_blocks = 5\n"
        ),
    )
    .unwrap();
    let env = env_of(vec![
        ("SEED_CONFIG_DIR", "/nonexistent".into()),
        ("SEED_OFF_PATH", "deny".into()),
        ("SEED_ENFORCEMENT", "observe".into()),
        ("SEED_FAIL", "closed".into()),
    ]);
    let c = load(&[t.path().to_path_buf()], &env, &Flags::default()).unwrap();
    let s = c.settings_for(SEQ);
    assert_eq!(
        (s.enforcement, s.off_path, c.fail),
        (
            Some(Enforcement::Observe),
            Some(OffPathPolicy::Deny),
            Some(FailMode::Closed)
        )
    );
    // What no variable sets stays the sequence's own section's.
    assert_eq!(s.stop.and_then(|x| x.max_blocks), Some(5));
    let flags = Flags {
        enforcement: Some("enforce".into()),
        fail: Some("open".into()),
        ..Flags::default()
    };
    let c = load(&[t.path().to_path_buf()], &env, &flags).unwrap();
    assert_eq!(
        (c.settings_for(SEQ).enforcement, c.fail),
        (Some(Enforcement::Enforce), Some(FailMode::Open))
    );
}

#[test]
fn bad_files_name_file_line_and_column() {
    let t = tempfile::tempdir().unwrap();
    let p = t.path().join(PROJECT_FILE);
    std::fs::write(&p, "sequence = \"a\"\nenforcement = \"sometimes\"\n").unwrap();
    let e = load(
        &[t.path().to_path_buf()],
        &env_of(vec![("SEED_CONFIG_DIR", "/nonexistent".into())]),
        &Flags::default(),
    )
    .unwrap_err();
    let msg = e.to_string();
    assert!(msg.starts_with(&format!("{}:2:15: ", p.display())), "{msg}");
    assert!(!msg.contains('\n'));
    let e = parse_file(&p, "sequence = \"a\"\nsequences = [\"b\"]\n").unwrap_err();
    assert!(e.message.contains("not both"));
    let e = parse_file(&p, "[stop]\nmax_blocks = \"two\"\n").unwrap_err();
    assert!(
        e.message.starts_with(&format!("{}:2:14: ", p.display())),
        "{}",
        e.message
    );
    let env = env_of(vec![
        ("SEED_FAIL", "maybe".into()),
        ("SEED_CONFIG_DIR", "/nonexistent".into()),
    ]);
    assert!(
        load(&[], &env, &Flags::default())
            .unwrap_err()
            .message
            .contains("SEED_FAIL")
    );
}

/// A file that does not parse is an error, but a readable `fail` line in it still counts:
/// a project that asked for fail-closed stays closed while its file is broken.
#[test]
fn a_broken_file_still_says_how_to_fail() {
    let p = Path::new("/p/.seed.toml");
    for (text, fail, at) in [
        (
            "fail = \"closed\"\nsequence = [\n",
            Some(FailMode::Closed),
            "/p/.seed.toml:2:",
        ),
        (
            "sequence = \"a\nfail = \"closed\"\n",
            Some(FailMode::Closed),
            "/p/.seed.toml:1:",
        ),
        (
            "enforcement = = 1\nfail = \"open\"\n",
            Some(FailMode::Open),
            "/p/.seed.toml:1:",
        ),
        (
            "fail = \"closed\"\ninject_every = \"x\"\n",
            Some(FailMode::Closed),
            "/p/.seed.toml:2:",
        ),
        ("[stop\nfail = \"closed\"\n", None, "/p/.seed.toml:1:"),
        ("sequence = [\n", None, "/p/.seed.toml:1:"),
    ] {
        let e = parse_file(p, text).unwrap_err();
        assert_eq!(e.fail, fail, "{text:?}: {}", e.message);
        assert!(e.message.starts_with(at), "{text:?}: {}", e.message);
        assert!(!e.message.contains('\n'), "{}", e.message);
    }
    // A flag or SEED_FAIL beats what the broken file says.
    let t = tempfile::tempdir().unwrap();
    std::fs::write(
        t.path().join(PROJECT_FILE),
        "fail = \"closed\"\nsequence = [\n",
    )
    .unwrap();
    let env = env_of(vec![
        ("SEED_CONFIG_DIR", "/nonexistent".into()),
        ("SEED_FAIL", "open".into()),
    ]);
    let e = load(&[t.path().to_path_buf()], &env, &Flags::default()).unwrap_err();
    assert_eq!(e.fail, Some(FailMode::Open));
}

/// A broken user file and a broken project file fail by the same rule, the usual precedence
/// for `fail`: a flag or SEED_FAIL, else the project file's, else the user file's — whichever
/// of them is the broken one (its `fail` line read when it can be).
#[test]
fn a_broken_user_file_and_a_broken_project_file_follow_one_rule() {
    let closed = Some(FailMode::Closed);
    let open = Some(FailMode::Open);
    let broken = "sequence = [\n";
    let broken_closed = "fail = \"closed\"\nsequence = [\n";
    // (user file, project file, fail mode of the error)
    let cases = [
        // The working file's `fail` counts next to a broken one, on either side.
        ("fail = \"closed\"\n", broken, closed),
        (broken, "fail = \"closed\"\n", closed),
        // The project beats the user, whichever is broken.
        (broken_closed, "fail = \"open\"\n", open),
        (
            "fail = \"closed\"\n",
            "fail = \"open\"\nsequence = [\n",
            open,
        ),
        ("fail = \"open\"\nsequence = [\n", broken_closed, closed),
        // Nothing readable: no fail mode (the default, open).
        (broken, broken, None),
        (broken, "", None),
    ];
    for (user, project, want) in cases {
        let t = tempfile::tempdir().unwrap();
        let user_dir = t.path().join("user");
        let proj = t.path().join("proj");
        std::fs::create_dir_all(&user_dir).unwrap();
        std::fs::create_dir_all(&proj).unwrap();
        std::fs::write(user_dir.join("config.toml"), user).unwrap();
        std::fs::write(proj.join(PROJECT_FILE), project).unwrap();
        let env = env_of(vec![("SEED_CONFIG_DIR", user_dir.display().to_string())]);
        let e = load(std::slice::from_ref(&proj), &env, &Flags::default()).unwrap_err();
        assert_eq!(
            e.fail, want,
            "user {user:?}, project {project:?}: {}",
            e.message
        );
        assert!(!e.message.contains('\n'), "{}", e.message);
        // The message names every broken file.
        for (text, file) in [(user, "config.toml"), (project, PROJECT_FILE)] {
            let named = e.message.contains(file);
            assert_eq!(named, text.contains("sequence = ["), "{}", e.message);
        }
        // A flag still beats both.
        let flags = Flags {
            fail: Some("open".into()),
            ..Flags::default()
        };
        let e = load(std::slice::from_ref(&proj), &env, &flags).unwrap_err();
        assert_eq!(e.fail, open);
    }
}

/// Keys this seed does not know (a newer seed's settings) are ignored with one warning line
/// naming them and where the first one is; everything else in the file still applies.
#[test]
fn unknown_keys_warn_and_the_rest_applies() {
    let p = Path::new("/p/.seed.toml");
    let text = "sequence = \"a\"\nfuture_knob = 1\n[stop]\nmax_blocks = 2\nbackoff = \"exp\"\n[overrides.x]\noff_path = \"deny\"\nlimit = 3\n[overrides.x.stop]\nwhen = 1\n[telemetry]\non = true\n";
    let parsed = parse_file(p, text).unwrap();
    assert_eq!(
        parsed.warning.as_deref(),
        Some(
            "/p/.seed.toml:2:1: unknown keys `future_knob`, `stop.backoff`, `overrides.x.limit`, `overrides.x.stop.when`, `telemetry` ignored (a setting of a newer seed?)"
        )
    );
    let c = parsed.config;
    assert_eq!(c.sequence_list(), Some(vec!["a".to_string()]));
    assert_eq!(c.stop.and_then(|s| s.max_blocks), Some(2));
    assert_eq!(c.overrides["x"].off_path, Some(OffPathPolicy::Deny));
    // Every key this seed knows is taken without a warning.
    let all = "sequence = \"a\"\nenforcement = \"advise\"\noff_path = \"warn\"\nfail = \"open\"\ninject_every = 1\nemit_allow = true\nresponse_limit = 10\n[stop]\nblock_until_final = true\nmax_blocks = 1\n[overrides.x]\nenforcement = \"observe\"\noff_path = \"deny\"\n[overrides.x.stop]\nblock_until_final = false\nmax_blocks = 3\n";
    assert_eq!(parse_file(p, all).unwrap().warning, None);
    let t = tempfile::tempdir().unwrap();
    std::fs::write(t.path().join(PROJECT_FILE), text).unwrap();
    let env = env_of(vec![("SEED_CONFIG_DIR", "/nonexistent".into())]);
    let c = load(&[t.path().to_path_buf()], &env, &Flags::default()).unwrap();
    assert!(c.warning.unwrap().contains("`future_knob`"));
}

#[test]
fn overrides_apply_to_charts() {
    let mut chart = crate::dialects::builtin(SEQ).unwrap().unwrap().chart;
    let t = tempfile::tempdir().unwrap();
    std::fs::write(
        t.path().join(PROJECT_FILE),
        format!("enforcement = \"advise\"\n[stop]\nblock_until_final = true\nmax_blocks = 2\n[overrides.{SEQ}]\noff_path = \"deny\"\n"),
    )
    .unwrap();
    let c = load(
        &[t.path().to_path_buf()],
        &env_of(vec![("SEED_CONFIG_DIR", "/nonexistent".into())]),
        &Flags::default(),
    )
    .unwrap();
    c.apply(&mut chart);
    assert_eq!(chart.settings.enforcement, Enforcement::Advise);
    assert_eq!(chart.settings.off_path, OffPathPolicy::Deny);
    assert!(chart.settings.stop.block_until_final);
    assert_eq!(chart.settings.stop.max_blocks, 2);
}

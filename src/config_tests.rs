use super::*;

fn env_of(pairs: Vec<(&'static str, String)>) -> impl Fn(&str) -> Option<String> {
    move |k: &str| pairs.iter().find(|(n, _)| *n == k).map(|(_, v)| v.clone())
}

#[test]
fn layers_and_precedence() {
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
    assert_eq!(c.enforcement, Some(Enforcement::Advise));
    assert_eq!(c.fail, Some(FailMode::Closed));
    assert_eq!(c.overrides["x"].enforcement, Some(Enforcement::Observe));
    assert_eq!(c.overrides["x"].off_path, Some(OffPathPolicy::Deny));
    assert_eq!(c.project_root.as_deref(), Some(proj.as_path()));
    assert_eq!(c.files.len(), 2);

    // SEED_SEQUENCE loses to the project's choice, wins over the user's; SEED_* settings win.
    let env2 = env_of(vec![
        ("SEED_CONFIG_DIR", user_dir.display().to_string()),
        ("SEED_SEQUENCE", "e1, e2".into()),
        ("SEED_ENFORCEMENT", "observe".into()),
    ]);
    let c = load(std::slice::from_ref(&sub), &env2, &Flags::default()).unwrap();
    assert_eq!(c.sequences[0], "a");
    assert_eq!(c.enforcement, Some(Enforcement::Observe));
    let c = load(std::slice::from_ref(&user_dir), &env2, &Flags::default()).unwrap();
    assert_eq!(c.sequences, ["e1", "e2"]);
    // Flags beat everything.
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

#[test]
fn bad_files_name_file_and_line() {
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
    assert!(msg.starts_with(&format!("{}:2:", p.display())), "{msg}");
    assert!(!msg.contains('\n'));
    std::fs::write(&p, "sequense = \"a\"\n").unwrap();
    let e = parse_file(&p, "sequense = \"a\"\n").unwrap_err();
    assert!(e.0.contains(":1:1:") && e.0.contains("sequense"), "{}", e.0);
    let e = parse_file(&p, "sequence = \"a\"\nsequences = [\"b\"]\n").unwrap_err();
    assert!(e.0.contains("not both"));
    let env = env_of(vec![
        ("SEED_FAIL", "maybe".into()),
        ("SEED_CONFIG_DIR", "/nonexistent".into()),
    ]);
    assert!(
        load(&[], &env, &Flags::default())
            .unwrap_err()
            .0
            .contains("SEED_FAIL")
    );
}

#[test]
fn overrides_apply_to_charts() {
    let mut chart = crate::dialects::builtin("starlog_initialization")
        .unwrap()
        .unwrap()
        .chart;
    let mut c = load(
        &[],
        &env_of(vec![("SEED_CONFIG_DIR", "/nonexistent".into())]),
        &Flags::default(),
    )
    .unwrap();
    c.enforcement = Some(Enforcement::Advise);
    c.stop = Some(StopConfig {
        block_until_final: Some(true),
        max_blocks: Some(2),
    });
    c.overrides.insert(
        "starlog_initialization".into(),
        Override {
            off_path: Some(OffPathPolicy::Deny),
            ..Default::default()
        },
    );
    c.apply(&mut chart);
    assert_eq!(chart.settings.enforcement, Enforcement::Advise);
    assert_eq!(chart.settings.off_path, OffPathPolicy::Deny);
    assert!(chart.settings.stop.block_until_final);
    assert_eq!(chart.settings.stop.max_blocks, 2);
}

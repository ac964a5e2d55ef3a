//! `seed new NAME`: a commented skeleton in each dialect, where sequences are found by name,
//! that `seed validate` accepts as it is; never over a file that exists.

use assert_cmd::Command;

fn seed(dir: &std::path::Path, args: &[&str]) -> (i32, String, String) {
    let o = Command::cargo_bin("seed")
        .unwrap()
        .args(args)
        .current_dir(dir)
        .env("CLAUDE_PROJECT_DIR", dir)
        .env_remove("SEED_HOME")
        .env("HOME", dir)
        .output()
        .unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn each_dialects_skeleton_validates_as_written() {
    let dir = tempfile::tempdir().unwrap();
    let seqs = dir.path().join(".seed").join("sequences");
    for (dialect, name, files) in [
        (
            "mermaid",
            "review_first",
            &["review_first.toml", "review_first.mmd"][..],
        ),
        ("json", "plan_build", &["plan_build.json"][..]),
        ("yaml", "test_commit", &["test_commit.yaml"][..]),
    ] {
        let (code, out, err) = seed(dir.path(), &["new", name, "--dialect", dialect]);
        assert_eq!(code, 0, "{out}{err}");
        for f in files {
            let text = std::fs::read_to_string(seqs.join(f)).unwrap();
            assert!(!text.contains("NAME"), "{f} names itself");
            assert!(text.contains(name), "{f}");
        }
        let entry = seqs.join(files[0]);
        assert!(
            out.contains(&format!("check it:  seed validate {}", entry.display())),
            "{out}"
        );
        let (code, out, err) = seed(dir.path(), &["validate", entry.to_str().unwrap()]);
        assert_eq!(code, 0, "{out}{err}");
        assert!(out.contains("0 errors, 0 warnings"), "{dialect}: {out}");
        // Named in .seed.toml's way, it resolves from the project's folder.
        std::fs::write(dir.path().join("none.jsonl"), "").unwrap();
        let (code, out, _) = seed(
            dir.path(),
            &["status", "--sequence", name, "--events", "none.jsonl"],
        );
        assert!(code == 0 && out.contains(name), "{dialect}: {out}");
    }
    // The Mermaid and YAML skeletons say where their keys are documented; JSON has no
    // comments, so its descriptions do.
    let toml = std::fs::read_to_string(seqs.join("review_first.toml")).unwrap();
    assert!(toml.contains("# advise: the agent is told"));
    let json = std::fs::read_to_string(seqs.join("plan_build.json")).unwrap();
    assert!(json.contains("\"description\": \"The plan, approved by the user"));
}

#[test]
fn a_name_that_is_taken_or_not_a_name_is_refused_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let (code, _, _) = seed(dir.path(), &["new", "mine", "--dir", "x"]);
    assert_eq!(code, 0);
    let (code, _, err) = seed(dir.path(), &["new", "mine", "--dir", "x"]);
    assert_eq!(
        (code, err.trim()),
        (1, "seed: x/mine.toml: already exists; choose another name")
    );
    let (code, _, err) = seed(dir.path(), &["new", "tdd"]);
    assert_eq!(code, 1);
    assert_eq!(
        err.trim(),
        "seed: tdd: a built-in sequence has that name; choose another, or copy the built-in with `seed init --sequence tdd`"
    );
    let (code, _, err) = seed(dir.path(), &["new", "../up"]);
    assert_eq!(
        (code, err.trim()),
        (
            1,
            "seed: \"../up\": a sequence name is letters, digits, `_` and `-` (at most 64)"
        )
    );
    let (code, _, err) = seed(dir.path(), &["new", "x", "--dialect", "xml"]);
    assert_eq!(code, 2, "{err}");
}

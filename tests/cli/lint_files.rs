//! Every lint `seed validate` reports, each on a sequence file crafted to break it: the file,
//! its line and column, the severity and the code, as a user reads them.

use assert_cmd::Command;

struct Case {
    file: &'static str,
    text: &'static str,
    /// The line `seed validate` prints, up to and including the start of the message.
    expect: &'static str,
}

const CASES: &[Case] = &[
    Case {
        file: "unreachable.json",
        text: r#"{
  "name": "x",
  "start": ["a"],
  "tool_transitions": {
    "a": { "next_allowed": ["b"] },
    "c": { "next_allowed": ["b"] }
  }
}"#,
        expect: "unreachable.json:6:5: warning[unreachable]: state `c` can never be entered",
    },
    // A railroad with no first call was a dead end; it is refused as it loads.
    Case {
        file: "empty_start.json",
        text: r#"{
  "name": "x",
  "start": [],
  "tool_transitions": { "a": { "next_allowed": ["b"] } }
}"#,
        expect: "empty_start.json:3:3: error[load]: `start` must be a tool name or a non-empty list of tool names",
    },
    Case {
        file: "dead_end.mmd",
        text: "stateDiagram-v2\n    [*] --> a\n    a --> stuck : Edit\n    a --> [*] : Read\n    stuck --> a : [false]\n",
        expect: "dead_end.mmd:3:11: error[dead-end]: state `stuck` has no way out and is not an ending",
    },
    Case {
        file: "cycle.json",
        text: r#"{
  "name": "x",
  "start": ["a"],
  "tool_transitions": {
    "a": { "next_allowed": ["b"] },
    "b": { "next_allowed": ["a"] }
  }
}"#,
        expect: "cycle.json:5:5: error[cycle-without-exit]: cycle with no exit to an ending: a → b",
    },
    Case {
        file: "choice.mmd",
        text: "stateDiagram-v2\n    [*] --> a\n    state route <<choice>>\n    a --> route : Bash / x = input.n\n    route --> b : [x == 1]\n    route --> c : [x == 2]\n    b --> [*]\n    c --> [*]\n",
        expect: "choice.mmd:3:11: warning[choice-without-default]: choice `route` has no default branch",
    },
    Case {
        file: "never.mmd",
        text: "stateDiagram-v2\n    [*] --> a\n    a --> b : Write\n    b --> [*] : Read\n    a : A<br>deny: Write\n",
        expect: "never.mmd:3:5: error[tool-never-allowed]: `Write` leads out of `a`, but `a` denies it, so it can never be used",
    },
    Case {
        file: "overlap.json",
        text: r#"{
  "name": "x",
  "tool_transitions": { "a": { "next_allowed": ["b"] } },
  "progress_layers": {
    "p": [0, 60],
    "q": [50, 100]
  }
}"#,
        expect: "overlap.json:6:5: error[band-overlap]: bands `p` and `q` overlap",
    },
    Case {
        file: "gap.json",
        text: r#"{
  "name": "x",
  "tool_transitions": { "a": { "next_allowed": ["b"] } },
  "progress_layers": {
    "p": [0, 40],
    "q": [50, 100]
  }
}"#,
        expect: "gap.json:6:5: error[band-gap]: bands leave a gap between `p` and `q`: [40, 50]",
    },
    Case {
        file: "reader.json",
        text: r#"{
  "name": "x",
  "tool_transitions": { "a": { "next_allowed": ["b"] } },
  "state_constraints": {
    "c": { "when": { "reader": "nobody", "value": 1 }, "allowed_tools": ["a"] }
  }
}"#,
        expect: "reader.json:5:12: error[undefined-reader]: guard reads reader `nobody`, which is not defined",
    },
    Case {
        file: "flag.json",
        text: r#"{
  "name": "x",
  "tool_transitions": { "a": { "next_allowed": ["b"] } },
  "state_constraints": {
    "c": { "when": { "flag": "never_set" }, "disallowed_tools": ["b"] }
  }
}"#,
        expect: "flag.json:5:12: error[undefined-flag]: guard reads flag `never_set`, which nothing sets or declares",
    },
    Case {
        file: "path_var.json",
        text: r#"{
  "name": "x",
  "tool_transitions": { "a": { "next_allowed": ["b"] } },
  "state_readers": {
    "status": "json:${TMPDIR}/status.json#/s"
  }
}"#,
        expect: "path_var.json:5:5: error[unknown-path-variable]: reader `status` reads `${TMPDIR}/status.json`, but `${TMPDIR}` never expands: paths expand only ${CLAUDE_PROJECT_DIR}, ${HOME}, ${HEAVEN_DATA_DIR}, ${SEED_HOME}",
    },
    Case {
        file: "path_var_guard.json",
        text: r#"{
  "name": "x",
  "tool_transitions": { "a": { "next_allowed": ["b"] } },
  "state_constraints": {
    "c": { "when": { "file_exists": "${PROJECT}/lock" }, "disallowed_tools": ["b"] }
  }
}"#,
        expect: "path_var_guard.json:5:37: error[unknown-path-variable]: reader `file_exists:${PROJECT}/lock` reads `${PROJECT}/lock`, but `${PROJECT}` never expands",
    },
];

#[test]
fn each_crafted_file_gets_its_lint_at_its_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    for case in CASES {
        std::fs::write(dir.path().join(case.file), case.text).unwrap();
        let out = Command::cargo_bin("seed")
            .unwrap()
            .current_dir(dir.path())
            .args(["validate", case.file])
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            stdout
                .lines()
                .any(|l| l.trim_start().starts_with(case.expect)),
            "{}: expected `{}` in\n{stdout}",
            case.file,
            case.expect
        );
        let error = case.expect.contains(": error[");
        assert_eq!(
            out.status.code(),
            Some(if error { 1 } else { 0 }),
            "{}: errors exit 1, warnings 0\n{stdout}",
            case.file
        );
    }
}

#[test]
fn a_reader_path_with_only_host_variables_is_fine() {
    let dir = tempfile::tempdir().unwrap();
    let text = r#"{"name": "x", "tool_transitions": {"a": {"next_allowed": ["b"]}},
      "state_readers": {"r": "json:${HOME}/${HEAVEN_DATA_DIR}/${CLAUDE_PROJECT_DIR}/${SEED_HOME}/x.json#/s"}}"#;
    std::fs::write(dir.path().join("ok.json"), text).unwrap();
    let out = Command::cargo_bin("seed")
        .unwrap()
        .current_dir(dir.path())
        .args(["validate", "ok.json"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(!stdout.contains("unknown-path-variable"), "{stdout}");
}

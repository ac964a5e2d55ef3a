//! The README's "Write your first sequence" works as written: its two files validate, and the
//! hooks refuse an edit before a read and hold the end of the turn until a test run.

use std::path::Path;

use serde_json::{Value, json};

/// The first fenced block of `lang` in the README's section `title`.
fn block(readme: &str, title: &str, lang: &str) -> String {
    let section = readme.split(title).nth(1).expect("the section");
    let start = section.find(&format!("```{lang}\n")).expect("the block") + lang.len() + 4;
    let len = section[start..].find("```").expect("its end");
    section[start..start + len].to_string()
}

fn seed(project: &Path, state: &Path) -> assert_cmd::Command {
    let mut c = assert_cmd::Command::cargo_bin("seed").unwrap();
    c.current_dir(project)
        .env("SEED_HOME", state)
        .env("CLAUDE_PROJECT_DIR", project)
        .env("SEED_CONFIG_DIR", state.join("no-config"))
        .env_remove("SEED_SEQUENCE")
        .env_remove("SEED_ENFORCEMENT");
    c
}

#[test]
fn the_first_sequence_of_the_readme_validates_and_does_what_it_says() {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
        .expect("README.md");
    let title = "## Write your first sequence";
    let (diagram, manifest) = (
        block(&readme, title, "mermaid"),
        block(&readme, title, "toml"),
    );
    assert!(
        diagram.lines().count() + manifest.lines().count() <= 16,
        "about fifteen lines"
    );
    let t = tempfile::tempdir().unwrap();
    let (project, state) = (t.path().join("app"), t.path().join("state"));
    let seqs = project.join(".seed/sequences");
    std::fs::create_dir_all(&seqs).unwrap();
    std::fs::write(seqs.join("review_first.mmd"), diagram).unwrap();
    std::fs::write(seqs.join("review_first.toml"), manifest).unwrap();
    std::fs::write(project.join(".seed.toml"), "sequence = \"review_first\"\n").unwrap();
    let o = seed(&project, &state)
        .args(["validate", ".seed/sequences/review_first.toml"])
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success() && out.contains("0 errors, 0 warnings"),
        "{out}"
    );

    let hook = |event: &str, tool: &str, input: Value| -> Value {
        let payload = json!({
            "session_id": "s1", "cwd": project, "hook_event_name": event,
            "tool_name": tool, "tool_input": input, "tool_use_id": "t", "tool_response": {},
        });
        let o = seed(&project, &state)
            .args(["hook", event])
            .write_stdin(payload.to_string())
            .output()
            .unwrap();
        serde_json::from_slice(&o.stdout).unwrap_or(Value::Null)
    };
    let call = |tool: &str, input: Value| -> Value {
        let gate = hook("PreToolUse", tool, input.clone());
        if gate.is_null() {
            hook("PostToolUse", tool, input);
        }
        gate["hookSpecificOutput"]["permissionDecision"].clone()
    };
    let file = json!({ "file_path": "src/lib.rs", "old_string": "a", "new_string": "b" });
    assert_eq!(call("Edit", file.clone()), "deny", "no edit before a read");
    assert_eq!(
        call("Read", json!({ "file_path": "src/lib.rs" })),
        Value::Null
    );
    assert_eq!(call("Edit", file), Value::Null);
    assert_eq!(
        hook("Stop", "", json!({}))["decision"],
        "block",
        "the tests first"
    );
    assert_eq!(
        call("Bash", json!({ "command": "cargo test" })),
        Value::Null
    );
    assert_eq!(
        hook("Stop", "", json!({})),
        Value::Null,
        "then the turn ends"
    );
}

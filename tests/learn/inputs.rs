//! What `seed learn` is given: nothing, the wrong thing, broken lines, hostile names, and a lot.

use serde_json::json;

use crate::transcripts::*;

fn sessions(dir: &std::path::Path) -> std::path::PathBuf {
    let s = dir.join("sessions");
    std::fs::create_dir_all(&s).unwrap();
    s
}

/// One line on stderr, exit 1.
fn fails(dir: &std::path::Path, args: &[&str]) -> String {
    let out = seed(args, dir);
    assert_eq!(out.code, 1, "{args:?}: {}", out.stdout);
    assert_eq!(out.stderr.lines().count(), 1, "{}", out.stderr);
    out.stderr.trim().to_string()
}

#[test]
fn nothing_to_learn_from_is_said_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let s = sessions(dir.path());
    assert_eq!(
        fails(dir.path(), &["learn", "sessions"]),
        "seed: sessions: no Claude Code transcript (*.jsonl) or seed session log in it"
    );
    assert!(fails(dir.path(), &["learn", "nope"]).starts_with("seed: nope: cannot read: "));
    std::fs::write(s.join("empty.jsonl"), "").unwrap();
    assert_eq!(
        fails(dir.path(), &["learn", "sessions"]),
        "seed: nothing to learn from: 1 session made no call other than neutral ones (reading, searching)"
    );
    Writer::new("reads", "look")
        .calls(&[read("/p/a"), call("Grep", json!({"pattern": "x"}))])
        .write(&s);
    assert!(
        fails(dir.path(), &["learn", "sessions"])
            .starts_with("seed: nothing to learn from: 2 sessions")
    );
    // Every call rarer than the threshold.
    Writer::new("once", "go").calls(&[edit("/p/a")]).write(&s);
    assert_eq!(
        fails(dir.path(), &["learn", "sessions"]),
        "seed: every call was made fewer than 2 times: nothing left to draft; lower --min-count"
    );
}

#[test]
fn bad_arguments_are_one_line() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(
        fails(dir.path(), &["learn", ".", "--out", "x.mmd"]),
        "seed: --out x.mmd: name the manifest (`.toml`); its diagram is written beside it (`.mmd`)"
    );
    assert_eq!(
        fails(dir.path(), &["learn", ".", "--dependency", "2"]),
        "seed: --dependency 2: expected a number from -1 to 1"
    );
    assert_eq!(
        fails(dir.path(), &["learn", ".", "--name", "a b"]),
        "seed: --name \"a b\": a sequence name is letters, digits, `_` and `-`"
    );
    let out = seed(&["learn"], dir.path());
    assert_eq!(out.code, 2, "clap: SOURCE is required");
}

#[test]
fn broken_lines_are_skipped_and_counted() {
    let dir = tempfile::tempdir().unwrap();
    let s = sessions(dir.path());
    for id in ["b1", "b2"] {
        let good = Writer::new(id, "go")
            .calls(&[edit("/p/a"), bash("cargo test")])
            .text();
        let text = format!("not json\n{{\"type\": 5}}\n\u{0}\u{1}garbage\n{good}{{\"truncated\": ");
        std::fs::write(s.join(format!("{id}.jsonl")), text).unwrap();
    }
    // A file that is no session at all sits among them.
    std::fs::write(
        s.join("noise.jsonl"),
        [0xffu8, 0xfe, 0x00, b'\n', 0x80].repeat(100),
    )
    .unwrap();
    let r = learn(dir.path(), &[]);
    assert_eq!(
        edges(&r),
        [
            "Bash(cargo test) -> end ×2",
            "Edit -> Bash(cargo test) ×2",
            "start -> Edit ×2"
        ]
    );
    assert!(
        r["skipped_lines"].as_u64().unwrap() >= 6,
        "{}",
        r["skipped_lines"]
    );
}

#[test]
fn hostile_names_never_break_the_draft_or_the_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let s = sessions(dir.path());
    let hostile = [
        call("mcp__evil__x\"\n-->[*]", json!({})),
        call("mcp__evil__\u{1b}[31mred", json!({})),
        call("Edit %% comment", json!({})),
        bash("\"quoted\" | tee x"),
        bash("echo hi\n    state \"x\" as y"),
        bash("git com*mit"),
        bash("(cd x && ls)"),
        call("Agent", json!({"subagent_type": "a\"b"})),
        call("Skill", json!({"skill": "p:s]x"})),
    ];
    for id in ["h1", "h2"] {
        let mut w = Writer::new(id, "go");
        for c in &hostile {
            w.turn(c.clone());
        }
        w.turn(edit("/p/a")).end().write(&s);
    }
    let out = seed(&["learn", "sessions", "--out", "h.toml"], dir.path());
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        !out.stdout.contains('\u{1b}'),
        "no escape reaches the terminal"
    );
    let v = seed(&["validate", "h.toml"], dir.path());
    assert_eq!(v.code, 0, "{}{}", v.stdout, v.stderr);
    assert!(v.stdout.contains("0 errors, 0 warnings"), "{}", v.stdout);
    let r = learn(dir.path(), &[]);
    // Names no pattern can spell are left out (and refused); the rest are named safely.
    assert_eq!(r["unspellable_calls"], json!(8), "{r}");
    let labels: Vec<&str> = r["activities"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["activity"].as_str().unwrap())
        .collect();
    assert_eq!(
        labels,
        ["Bash", "Bash(echo)", "Bash(git)", "Agent", "Edit"],
        "quoted and bracketed commands are any Bash; `git com*mit` is git"
    );
}

#[test]
fn a_large_log_is_bounded_and_still_valid() {
    // 300 distinct commands, each twice per session, in 3 long sessions: the draft keeps the
    // 200 most called and stays a sequence `seed validate` accepts.
    let dir = tempfile::tempdir().unwrap();
    let s = sessions(dir.path());
    for id in ["big1", "big2", "big3"] {
        let mut w = Writer::new(id, "go");
        for round in 0..2 {
            for i in 0..300 {
                w.turn(bash(&format!(
                    "tool{} --round {round}",
                    (i * 7 + round) % 300
                )));
            }
        }
        w.end().write(&s);
    }
    let out = seed(
        &["learn", "sessions", "--out", "big.toml", "--json"],
        dir.path(),
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let r = out.json();
    let kept = r["activities"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| a["kept"] == json!(true))
        .count();
    assert!(kept <= 200 && kept > 0, "{kept}");
    let v = seed(&["validate", "big.toml"], dir.path());
    assert_eq!(v.code, 0, "{}{}", v.stdout, v.stderr);
    assert!(!v.stdout.contains("error["), "{}", v.stdout);
}

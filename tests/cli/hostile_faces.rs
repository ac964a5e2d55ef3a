//! One hostile corpus (CSI, OSC, BEL, C1, every kind of bidi control, NUL) through every face
//! that shows outside text: the hook's answers (which Claude Code shows to the user and the
//! model), the hook's stderr line, `seed doctor` reprinting it, `seed replay --summary`, and
//! the dashboard's timeline filter title. None passes a raw control or bidi character; each
//! shows the text, with those characters written out (`\u{1b}`).

use std::process::Command;

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::{Value, json};

use crate::support::hook::{Sandbox, payload};
use crate::support::project::{Project, bin};

/// Every kind of character that must not reach a terminal raw.
const CORPUS: &str = "csi\u{1b}[2J osc\u{1b}]0;owned\u{7} c1\u{9b}31m nel\u{85} rlo\u{202e}gnp.exe lri\u{2066}x\u{2069} rlm\u{200f} alm\u{61c} nul\u{0} end";

/// The first character a terminal would run or reorder: a control (but newline and tab), a
/// C1 control, a bidi control.
fn first_unsafe(text: &str) -> Option<(usize, char)> {
    text.char_indices().find(|&(_, c)| {
        (c.is_control() && c != '\n' && c != '\t')
            || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{61c}')
    })
}

fn assert_shown_safely(face: &str, text: &str) {
    if let Some((i, c)) = first_unsafe(text) {
        panic!("{face}: raw {c:?} at byte {i} of {text:?}");
    }
    // The text is shown, its hostile characters spelled out.
    assert!(
        text.contains("\\u{1b}[2J") && text.contains("\\u{202e}gnp.exe"),
        "{face}: {text}"
    );
}

/// Every string of a JSON answer, as Claude Code decodes and shows it.
fn strings(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.push(s.clone()),
        Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
        Value::Object(m) => m.iter().for_each(|(k, x)| {
            out.push(k.clone());
            strings(x, out)
        }),
        _ => {}
    }
}

/// A TOML basic string holding `text` exactly (control characters as `\uXXXX`).
fn toml_str(text: &str) -> String {
    let mut s = String::from("\"");
    for c in text.chars() {
        match c {
            '"' | '\\' => s.extend(['\\', c]),
            c if c.is_control() => s.push_str(&format!("\\u{:04X}", u32::from(c))),
            c => s.push(c),
        }
    }
    s.push('"');
    s
}

const GATE: &str = r#"{"name":"gate","description":"x","enforcement":"enforce","off_path":"deny",
  "tool_transitions":{"w.start":{"next_allowed":["w.next"]}}}"#;

#[test]
fn the_hooks_answers_and_stderr_show_the_corpus_escaped() {
    let s = Sandbox::new();
    std::fs::write(s.project().join("gate.json"), GATE).unwrap();
    // An unknown key of the project's file is named in a warning on stderr.
    s.write_config(&format!("{} = 1\n", toml_str(&format!("key {CORPUS}"))));
    let tool = format!("mcp__srv__{CORPUS}");
    for enforcement in ["enforce", "advise"] {
        let r = s.hook(
            &[
                "--sequence",
                "gate.json",
                "--enforcement",
                enforcement,
                "PreToolUse",
            ],
            payload(
                "PreToolUse",
                "hostile",
                json!({"tool_name": tool, "tool_input": {"command": CORPUS}}),
            ),
        );
        assert_eq!(r.code, 0);
        let mut shown = Vec::new();
        strings(&r.json(), &mut shown);
        let quoted = shown.iter().filter(|t| t.contains("gnp.exe")).count();
        assert!(
            quoted > 0,
            "{enforcement}: the answer quotes the call: {}",
            r.stdout
        );
        for t in &shown {
            if t.contains("gnp.exe") {
                assert_shown_safely(&format!("{enforcement} answer"), t);
            } else {
                assert_eq!(first_unsafe(t), None, "{t:?}");
            }
        }
        assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
        assert_shown_safely("hook stderr", &r.stderr);
    }
}

#[test]
fn doctor_reprints_the_hooks_stderr_escaped() {
    let p = Project::new();
    let b = bin();
    let (code, out, err) =
        p.seed_with_path(&["install", "--local", "--bin", b.to_str().unwrap()], &[]);
    assert_eq!(code, 0, "{out}{err}");
    // A cloned repository's file names a sequence that is not there: every hook fails and
    // says so on stderr, quoting the name; doctor reprints what the hooks said.
    std::fs::write(
        p.root().join(".seed.toml"),
        format!("sequence = {}\n", toml_str(&format!("seq {CORPUS}"))),
    )
    .unwrap();
    let (code, out, err) = p.seed_with_path(&["doctor"], &[]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("gnp.exe"),
        "doctor quotes the hooks' failure: {out}"
    );
    assert_shown_safely("doctor", &out);
    assert_eq!(first_unsafe(&err), None, "{err:?}");
}

#[test]
fn replay_summary_shows_the_corpus_escaped() {
    // A session whose calls the sequence refused, quoting the hostile tool name.
    let s = Sandbox::new();
    std::fs::write(s.project().join("gate.json"), GATE).unwrap();
    let tool = format!("mcp__srv__{CORPUS}");
    for id in ["t1", "t2"] {
        let call = json!({"tool_name": tool, "tool_input": {"command": CORPUS}, "tool_use_id": id});
        let r = s.hook(
            &["--sequence", "gate.json", "PreToolUse"],
            payload("PreToolUse", "hostile", call),
        );
        assert_eq!(r.code, 0);
    }
    let log = s.session_dir("hostile").join("log.jsonl");
    for args in [
        vec!["--summary"],
        vec!["--summary", "--sequence", "gate.json"],
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_seed"))
            .arg("replay")
            .arg(&log)
            .args(&args)
            .current_dir(s.project())
            .env("SEED_HOME", s.home())
            .env_remove("CLAUDE_PROJECT_DIR")
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_shown_safely(&format!("replay {args:?}"), &text);
    }
}

#[test]
fn the_dashboards_filter_title_shows_a_subagent_id_escaped() {
    let info = seed::tui::SessionInfo {
        id: "s".into(),
        ..Default::default()
    };
    let mut m = seed::tui::Model::new(info, vec![], "default");
    m.filter.text = format!("agent {}", &CORPUS[..CORPUS.find(" lri").unwrap_or(0)]);
    m.filter.editing = true;
    let theme = seed::tui::Theme::load("default", None).unwrap();
    let mut t = Terminal::new(TestBackend::new(160, 30)).unwrap();
    t.draw(|f| seed::tui::render(f, &m, &theme)).unwrap();
    let buf = t.backend().buffer().clone();
    let screen: String = (0..buf.area.height)
        .map(|y| {
            let row: String = (0..buf.area.width).map(|x| buf[(x, y)].symbol()).collect();
            row + "\n"
        })
        .collect();
    let title = screen
        .lines()
        .find(|l| l.contains("timeline"))
        .unwrap_or_default()
        .to_string();
    assert!(title.contains("/agent csi\\u{1b}[2J"), "{title}");
    assert_eq!(first_unsafe(&screen), None, "{screen:?}");
}

//! Mistakes in a master sequence are refused where they are written (`file:line:col` and what
//! is wrong), never loaded as something else: a misspelt nested setting, a value of the wrong
//! type, a key an object does not take, a tool named twice in two spellings, a name that is
//! no tool, an empty `start` list.

use assert_cmd::Command;
use seed::dialects::load_text;
use seed::engine::Machine;
use seed::engine::lint::Severity;

fn none(_: &str) -> Option<String> {
    None
}

/// A sequence with `extra` as its last members (from line 4) beside a two-step railroad.
fn with(extra: &str) -> String {
    format!(
        "{{\n  \"name\": \"s\",\n  \"tool_transitions\": {{ \"a.x\": {{ \"next_allowed\": [\"b.y\"] }} }},\n{extra}\n}}"
    )
}

fn refused(text: &str) -> (u32, u32, String) {
    match load_text("s.json", text, &none) {
        Ok(_) => panic!("loaded:\n{text}"),
        Err(e) => (e.line, e.col, e.message),
    }
}

#[test]
fn nested_settings_refuse_unknown_keys_and_wrong_types() {
    for (extra, at, message) in [
        // `falback` would have left the fallback at deny without a word.
        (
            r#"  "deadlock": { "limit": 3, "falback": "ask" }"#,
            (4, 29),
            "unknown key `falback` in `deadlock`: expected limit or fallback",
        ),
        (
            r#"  "stop": { "blok": true }"#,
            (4, 13),
            "unknown key `blok` in `stop`: expected block_until_final or max_blocks",
        ),
        (
            r#"  "stop": { "block_until_final": "yes" }"#,
            (4, 13),
            "`stop.block_until_final` must be true or false",
        ),
        (
            r#"  "stop": { "block_until_final": true, "max_blocks": -1 }"#,
            (4, 40),
            "`stop.max_blocks` must be a whole number from 0 to 100: the Stop hooks seed blocks before it lets the agent stop",
        ),
        (
            r#"  "stop": { "max_blocks": 2.5 }"#,
            (4, 13),
            "`stop.max_blocks` must be a whole number from 0 to 100: the Stop hooks seed blocks before it lets the agent stop",
        ),
    ] {
        assert_eq!(
            refused(&with(extra)),
            (at.0, at.1, message.to_string()),
            "{extra}"
        );
    }
}

#[test]
fn a_stop_section_keeps_its_defaults_for_what_it_leaves_out() {
    let l = load_text(
        "s.json",
        &with(r#"  "stop": { "block_until_final": true }"#),
        &none,
    )
    .expect("loads");
    let stop = l.chart.settings.stop;
    assert_eq!((stop.block_until_final, stop.max_blocks), (true, 2));
}

#[test]
fn next_allowed_objects_and_reader_objects_take_only_their_keys() {
    let text = "{\n  \"name\": \"s\",\n  \"tool_transitions\": {\n    \"a.x\": { \"next_allowed\": [{ \"tool\": \"b.y\", \"inputs\": { \"/stage\": \"init\" } }] }\n  }\n}";
    assert_eq!(
        refused(text),
        (
            4,
            48,
            "unknown key `inputs` in a `next_allowed` entry: expected tool and input".into()
        )
    );
    // Each at the key it is about.
    for (reader, col, message) in [
        (
            r#"{ "kind": "json", "path": "${HOME}/s.json", "pointr": "/x" }"#,
            71,
            "reader `r`: unknown key `pointr`: a reader takes kind, path, pointer, description",
        ),
        (
            r#"{ "kind": "count", "path": "${HOME}/*.json", "pointer": "/x" }"#,
            72,
            "reader `r`: `pointer` is for a json reader only",
        ),
        (
            r#"{ "kind": "json", "path": "${HOME}/s.json", "pointer": 3 }"#,
            71,
            "reader `r`: `pointer` must be a string",
        ),
    ] {
        let extra = format!("  \"state_readers\": {{ \"r\": {reader} }}");
        assert_eq!(
            refused(&with(&extra)),
            (4, col, message.to_string()),
            "{reader}"
        );
    }
}

#[test]
fn two_spellings_of_one_tool_are_one_key() {
    let text = "{\n  \"name\": \"s\",\n  \"tool_transitions\": {\n    \"a.x\": { \"next_allowed\": [\"b.y\"] },\n    \"mcp__a__x\": { \"next_allowed\": [\"c.z\"] }\n  }\n}";
    assert_eq!(
        refused(text),
        (
            5,
            5,
            "`mcp__a__x` and `a.x` name the same tool: define it once".into()
        )
    );
}

/// A step named one way in `next_allowed` and the other way as a key is one step: the chain
/// goes on through it.
#[test]
fn a_step_spelt_two_ways_is_one_state() {
    let text = r#"{"name": "s", "tool_transitions": {
        "a.x": {"next_allowed": ["mcp__b__y"]},
        "b.y": {"next_allowed": ["c.z"]}}}"#;
    let l = load_text("s.json", text, &none).expect("loads");
    let steps: Vec<&str> = l
        .chart
        .states
        .iter()
        .skip(1)
        .map(|s| s.name.as_str())
        .collect();
    assert_eq!(steps, ["start", "a.x", "b.y", "c.z"]);
    let m = Machine::new(l.chart);
    assert!(m.lint().is_empty(), "{:?}", m.lint());
}

#[test]
fn a_name_that_names_no_tool_is_refused() {
    for (name, message) in [
        (
            "mcp__",
            "`mcp__`: an MCP tool is named `mcp__server__tool`, with both parts",
        ),
        (
            "mcp__a__",
            "`mcp__a__`: a dotted tool name is `server.tool`, with both parts",
        ),
        (
            ".",
            "`.`: a dotted tool name is `server.tool`, with both parts",
        ),
        (
            "a.",
            "`a.`: a dotted tool name is `server.tool`, with both parts",
        ),
    ] {
        let text = format!(
            "{{\n  \"name\": \"s\",\n  \"tool_transitions\": {{ \"a.x\": {{ \"next_allowed\": [\"{name}\"] }} }}\n}}"
        );
        let (line, _, msg) = refused(&text);
        assert_eq!((line, msg.as_str()), (3, message), "{name}");
        let text = with(&format!("  \"neutral_tools\": [\"{name}\"]"));
        assert_eq!(refused(&text).2, message, "{name} as a neutral tool");
    }
    // Globs over MCP tools stay patterns.
    for name in ["mcp__*", "mcp__*__x", "*.x", "s.*"] {
        let text = with(&format!("  \"neutral_tools\": [\"{name}\"]"));
        load_text("s.json", &text, &none).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

#[test]
fn an_empty_start_list_is_refused() {
    for start in [r#"[]"#, r#"["a.x", 3]"#, "{}"] {
        let (line, col, msg) = refused(&with(&format!("  \"start\": {start}")));
        assert_eq!((line, col), (4, 3), "{start}");
        assert_eq!(
            msg,
            "`start` must be a tool name or a non-empty list of tool names: the railroad's first calls"
        );
    }
}

/// `$HOME` is text to the reader host: only `${HOME}` expands, and the error says so.
#[test]
fn a_variable_without_braces_in_a_reader_path_is_an_error_naming_the_braced_form() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("s.json");
    std::fs::write(
        &file,
        with(r#"  "state_readers": { "r": "json:$HOME/.s/state.json#/status", "t": "count:$TMPDIR/*" }"#),
    )
    .unwrap();
    let out = Command::cargo_bin("seed")
        .unwrap()
        .arg("validate")
        .arg(&file)
        .env("SEED_HOME", dir.path())
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let out = String::from_utf8_lossy(&out);
    let at = format!("{}:4:22: error[unknown-path-variable]: ", file.display());
    assert!(
        out.contains(&format!("{at}reader `r` reads `$HOME/.s/state.json`, but `$HOME` never expands: write `${{HOME}}`")),
        "{out}"
    );
    assert!(
        out.contains("reader `t` reads `$TMPDIR/*`, but `$TMPDIR` never expands: paths expand only ${CLAUDE_PROJECT_DIR}, ${HOME}, "),
        "{out}"
    );
    // The braced form loads clean.
    let l = load_text(
        "s.json",
        &with(r#"  "state_readers": { "r": "json:${HOME}/.s/state.json#/status" }"#),
        &none,
    )
    .expect("loads");
    assert!(
        l.warnings.iter().all(|w| w.severity != Severity::Error),
        "{:?}",
        l.warnings
    );
}

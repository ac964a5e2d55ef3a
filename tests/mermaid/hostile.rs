//! Hostile and huge Mermaid input: nesting, guard depth, long labels and big diagrams are
//! refused with one `file:line:column` error, quickly, and never exhaust the stack (a stack
//! overflow aborts the process, so the hook could not even fail closed).

use crate::support::mermaid as mermaid_common;

use std::collections::HashMap;

use mermaid_common::diagram::{error, load};
use seed::dialects::expr::MAX_DEPTH as MAX_GUARD_DEPTH;
use seed::dialects::mermaid::label::MAX_LABEL_CHARS;
use seed::dialects::mermaid::parser::{MAX_BYTES, MAX_LINES, MAX_NESTING};
use seed::dialects::mermaid::tree::{MAX_DEPTH, MAX_STATES};
use seed::dialects::{LoadError, Loaded, load_text};
use seed::engine::build::ChartBuilder;
use seed::engine::ir::{Dialect, StateId, StateKind, Transition, Trigger};
use seed::engine::{Machine, Pattern};

/// `depth` composites, one inside the other, each on its own line (line 2 opens `s0`).
fn nested(depth: usize) -> String {
    let mut text = String::from("stateDiagram-v2\n");
    for i in 0..depth {
        text.push_str(&format!("state s{i} {{\n"));
    }
    text.push_str("[*] --> leaf\n");
    text.push_str(&"}\n".repeat(depth));
    text.push_str("[*] --> s0\n");
    text
}

/// A diagram whose one labelled edge has `label` (line 3, the label at column 11).
fn edge_label(label: &str) -> String {
    format!("stateDiagram-v2\n[*] --> a\na --> b : {label}\nb --> [*]\n")
}

fn manifest(body: &str, files: &[(&str, String)]) -> Result<Loaded, LoadError> {
    let files: HashMap<String, String> = files
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect();
    let text = format!("name = \"m\"\ndiagram = \"top.mmd\"\n{body}");
    load_text("m.toml", &text, &|rel| files.get(rel).cloned())
}

fn at(e: &LoadError) -> (u32, u32) {
    (e.line, e.col)
}

#[test]
fn composites_nest_up_to_the_limit() {
    let l = load(&nested(MAX_NESTING));
    let leaf = (0..MAX_NESTING)
        .map(|i| format!("s{i}"))
        .chain(["leaf".to_string()])
        .collect::<Vec<_>>()
        .join(".");
    assert!(l.chart.find(&leaf).is_some(), "{leaf}");
}

#[test]
fn nesting_past_the_limit_is_an_error_at_the_state_that_opens_it() {
    let e = error(&nested(MAX_NESTING + 1));
    // Line 1 is the header, line 2 opens s0: the first composite too deep is s32 on line 34.
    assert_eq!(at(&e), (2 + MAX_NESTING as u32, 1), "{e}");
    assert_eq!(
        e.message,
        format!(
            "`state s{MAX_NESTING} {{` nests composite states deeper than {MAX_NESTING} levels"
        )
    );
}

#[test]
fn thousands_of_nested_composites_are_refused_not_a_stack_overflow() {
    let e = error(&nested(5_000));
    assert_eq!(at(&e), (2 + MAX_NESTING as u32, 1), "{e}");
}

#[test]
fn guards_nest_up_to_the_limit() {
    let deep = format!(
        "Bash [{}flag x{}]",
        "(".repeat(MAX_GUARD_DEPTH),
        ")".repeat(MAX_GUARD_DEPTH)
    );
    let l = load(&format!(
        "stateDiagram-v2\n[*] --> a\na --> b : {deep} / set flag x\nb --> [*]\n"
    ));
    assert!(
        l.warnings.iter().all(|w| w.code != "unparsed-label"),
        "{:?}",
        l.warnings
    );
}

#[test]
fn a_guard_nested_past_the_limit_is_an_error_at_the_first_parenthesis_too_many() {
    let e = error(&edge_label(&format!(
        "Bash [{}flag x{}]",
        "(".repeat(MAX_GUARD_DEPTH + 1),
        ")".repeat(MAX_GUARD_DEPTH + 1)
    )));
    // `Bash [` is 6 characters: the 65th `(` is at 11 + 6 + 64.
    assert_eq!(at(&e), (3, 11 + 6 + MAX_GUARD_DEPTH as u32), "{e}");
    assert_eq!(
        e.message,
        format!("guard nested deeper than {MAX_GUARD_DEPTH} levels")
    );
}

#[test]
fn thousands_of_parentheses_or_negations_in_a_guard_are_refused() {
    for guard in [
        format!("{}flag x", "(".repeat(4_000)),
        format!("{}flag x", "!".repeat(4_000)),
        format!("{}flag x", "!(".repeat(2_000)),
    ] {
        let e = error(&edge_label(&format!("Bash [{guard}]")));
        assert_eq!(e.line, 3, "{e}");
        assert!(e.message.contains("guard nested deeper than"), "{e}");
    }
}

#[test]
fn an_overlong_label_is_refused_whatever_it_says() {
    let e = error(&edge_label(&"word ".repeat(MAX_LABEL_CHARS)));
    assert_eq!(e.line, 3, "{e}");
    assert_eq!(
        e.message,
        format!("label longer than {MAX_LABEL_CHARS} characters")
    );
    // Up to the limit, prose is documentation as ever.
    let prose = "x".repeat(MAX_LABEL_CHARS);
    let l = load(&edge_label(&prose));
    let w = l
        .warnings
        .iter()
        .find(|w| w.code == "unparsed-label")
        .expect("warned");
    assert!(
        w.message.len() < 300,
        "the warning quotes the label clipped: {}",
        w.message
    );
}

#[test]
fn manifest_labels_are_held_to_the_same_limits() {
    let top = (
        "top.mmd",
        "stateDiagram-v2\n[*] --> a\na --> b\nb --> [*]\n".to_string(),
    );
    let deep = format!("Bash [{}flag x]", "(".repeat(2_000));
    let e = manifest(
        &format!("[[edge]]\nfrom = \"a\"\nto = \"b\"\nlabel = \"{deep}\"\n"),
        std::slice::from_ref(&top),
    )
    .expect_err("refused");
    assert_eq!((e.file.as_str(), e.line), ("m.toml", 6), "{e}");
    assert!(
        e.message.contains("guard nested deeper than 64 levels") && e.message.len() < 300,
        "{e}"
    );
    let e = manifest(
        &format!("[[bind]]\non = \"{deep}\"\nenter = \"b\"\n"),
        &[top],
    )
    .expect_err("refused");
    assert_eq!((e.file.as_str(), e.line), ("m.toml", 4), "{e}");
    assert!(
        e.message.contains("guard nested deeper than 64 levels") && e.message.len() < 300,
        "{e}"
    );
}

#[test]
fn diagrams_expanded_into_each_other_count_their_depth_together() {
    // Each diagram is within its own nesting limit; expanded one into the other, the chart
    // would be deeper than MAX_DEPTH.
    let top = nested(MAX_NESTING);
    let leaf = (0..MAX_NESTING)
        .map(|i| format!("s{i}"))
        .chain(["leaf".to_string()])
        .collect::<Vec<_>>()
        .join(".");
    let e = manifest(
        &format!("[expand]\n\"{leaf}\" = \"detail.mmd\"\n"),
        &[
            ("top.mmd", top),
            ("detail.mmd", nested(MAX_DEPTH - MAX_NESTING)),
        ],
    )
    .expect_err("refused");
    assert!(e.file.ends_with("detail.mmd"), "{e}");
    assert!(
        e.message
            .ends_with(&format!("is nested deeper than {MAX_DEPTH} levels")),
        "{e}"
    );
}

#[test]
fn more_statement_lines_than_the_limit_are_refused_at_the_first_one_too_many() {
    let mut text = String::from("stateDiagram-v2\n[*] --> a\n");
    for _ in 0..MAX_LINES {
        text.push_str("a : more\n");
    }
    let started = std::time::Instant::now();
    let e = error(&text);
    assert_eq!(at(&e), (MAX_LINES as u32 + 1, 1), "{e}");
    assert_eq!(
        e.message,
        format!("more than {MAX_LINES} statement lines: a diagram may have at most {MAX_LINES}")
    );
    assert!(started.elapsed().as_secs() < 5, "{:?}", started.elapsed());
}

#[test]
fn more_states_than_the_limit_are_refused_at_the_first_one_too_many() {
    let mut text = String::from("stateDiagram-v2\n[*] --> s0\n");
    for i in 0..MAX_STATES + 10 {
        text.push_str(&format!("s{i} --> s{} : Bash\n", i + 1));
    }
    let e = error(&text);
    assert!(
        e.message
            .starts_with(&format!("more than {MAX_STATES} states")),
        "{e}"
    );
    // The root and s0 … s1999 exist; the line that names one more is refused.
    assert_eq!(e.line, MAX_STATES as u32 + 2, "{e}");
}

#[test]
fn a_diagram_larger_than_the_byte_limit_is_refused_before_it_is_read() {
    let mut text = String::from("stateDiagram-v2\n[*] --> a\nnote left of a\n");
    let row = format!("{}\n", "n".repeat(1000));
    while text.len() <= MAX_BYTES {
        text.push_str(&row);
    }
    text.push_str("end note\n");
    let started = std::time::Instant::now();
    let e = error(&text);
    assert_eq!(
        e.message,
        "diagram larger than 1048576 bytes: a diagram may have at most 1048576 bytes (1 MiB)"
    );
    assert!(e.line > 1000, "points where the limit is passed: {e}");
    assert!(started.elapsed().as_secs() < 5, "{:?}", started.elapsed());
}

#[test]
fn the_largest_diagram_allowed_loads_and_lints_in_time() {
    let mut text = String::from("stateDiagram-v2\n  [*] --> s0\n");
    for i in 0..MAX_STATES - 2 {
        text.push_str(&format!(
            "  s{i} --> s{} : Bash\n  s{i} : step {i}\n",
            i + 1
        ));
    }
    let started = std::time::Instant::now();
    let l = load(&text);
    let lints = Machine::new(l.chart.clone()).lint();
    // A guard against quadratic behaviour, not a benchmark.
    assert!(
        started.elapsed().as_secs() < 30,
        "took {:?}",
        started.elapsed()
    );
    assert!(l.chart.states.len() <= MAX_STATES + 2);
    assert!(
        lints.iter().all(|w| w.code != "cycle-without-exit"),
        "{lints:?}"
    );
}

#[test]
fn a_very_long_chain_lints_without_exhausting_the_stack() {
    // Diagrams stop at MAX_STATES, but charts built otherwise may hold up to the builder's
    // cap: 100k states in one chain (a recursive graph walk would need 100k frames; a release
    // build's recursive SCC overflowed the main thread's 8 MiB stack at 87k).
    let n = seed::engine::build::MAX_STATES - 2;
    let mut b = ChartBuilder::new("chain", Dialect::Mermaid, false);
    let ids: Vec<StateId> = (0..=n)
        .map(|i| {
            b.add_state(StateId::ROOT, &format!("s{i}"), StateKind::Atomic)
                .expect("unique")
        })
        .collect();
    let bash = Pattern::parse("Bash").expect("pattern");
    for w in ids.windows(2) {
        b.add_transition(Transition {
            source: w[0],
            targets: vec![w[1]],
            trigger: Trigger::Event(bash.clone()),
            guard: None,
            actions: Vec::new(),
            label: None,
            span: None,
        });
    }
    let lints = Machine::new(b.finish().expect("builds")).lint();
    assert!(
        lints.iter().all(|w| w.code != "cycle-without-exit"),
        "{lints:?}"
    );
}

#[test]
fn a_manifest_naming_a_huge_diagram_file_is_refused_without_reading_it_whole() {
    let dir = std::env::temp_dir().join(format!("seed-hostile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    std::fs::write(dir.join("m.toml"), "name = \"m\"\ndiagram = \"big.mmd\"\n").expect("write");
    let big = std::fs::File::create(dir.join("big.mmd")).expect("create");
    // Sparse: 64 GiB of zero bytes that a whole read would try to hold in memory.
    big.set_len(64 << 30).expect("sparse file");
    let e = seed::dialects::load_path(&dir.join("m.toml")).expect_err("refused");
    std::fs::remove_dir_all(&dir).ok();
    assert!(e.file.ends_with("big.mmd"), "{e}");
    assert!(e.message.starts_with("diagram larger than"), "{e}");
}

#[test]
fn a_control_character_is_refused_at_its_line_and_column() {
    // A NUL after an id would become part of the state's key.
    let e = error("stateDiagram-v2\n [*] --> A\0\n A --> [*] : x.y\n");
    assert_eq!(at(&e), (2, 11), "{e}");
    assert!(e.message.contains("U+0000"), "{e}");
    for (text, pos) in [
        (
            "stateDiagram-v2\n[*] --> A\nA --> B : x.go \u{1b}[31m\n",
            (3, 16),
        ),
        ("stateDiagram-v2\n%% a comment\u{7f}\n[*] --> A\n", (2, 13)),
        ("stateDiagram-v2\u{85}\n[*] --> A\n", (1, 16)),
    ] {
        let e = error(text);
        assert_eq!(at(&e), pos, "{text:?}: {e}");
        assert!(e.message.contains("control character"), "{e}");
    }
    // Tabs and CRLF line ends are ordinary.
    let l = load("stateDiagram-v2\r\n\t[*] --> A\r\n\tA --> [*] : x.y\r\n");
    assert!(l.chart.find("A").is_some());
}

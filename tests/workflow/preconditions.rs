//! Every precondition type of seed 003 as a typed guard: file-system checks become deep-state
//! readers under `${CLAUDE_PROJECT_DIR}`, state checks read flags and variables.

use crate::support::workflow as workflow_common;

use seed::engine::ir::{CmpOp, Guard, ReaderDecl, ReaderKind};
use serde_json::{Value, json};
use workflow_common::*;

/// The guard (and readers) a precondition compiles to, as the condition of a conditional.
fn cond(pre: &str) -> (Guard, Vec<ReaderDecl>) {
    let nodes = format!(
        "  c:\n    type: conditional\n    condition:\n{}\n    branches:\n      true: done\n      false: failed",
        indent(pre, 6)
    );
    let loaded = load(&wf("c", &nodes).replace(
        "name: t\n",
        "name: t\ninitial_state:\n  n: 1\n  flags:\n    x: false\n",
    ));
    let c = loaded.chart.find("c").unwrap();
    let (_, t) = loaded.chart.transitions_from(c).next().unwrap();
    (t.guard.clone().unwrap(), loaded.chart.readers)
}

fn var(name: &str, op: CmpOp, value: Value) -> Guard {
    Guard::Var {
        name: name.into(),
        op,
        value,
    }
}

fn reader_true(name: &str) -> Guard {
    Guard::Reader {
        name: name.into(),
        op: CmpOp::Eq,
        value: json!(true),
    }
}

fn file_reader(reader: &str) -> Guard {
    Guard::FileExists {
        reader: reader.into(),
    }
}

#[test]
fn file_system_preconditions_are_readers_under_the_project_dir() {
    let project = |p: &str| format!("${{CLAUDE_PROJECT_DIR}}/{p}");
    let cases: Vec<(&str, Guard, ReaderKind)> = vec![
        (
            "type: config_exists",
            file_reader("config_exists"),
            ReaderKind::FileExists {
                path: project("data/config.yaml"),
            },
        ),
        (
            "type: index_exists",
            file_reader("index_exists"),
            ReaderKind::FileExists {
                path: project("data/index.md"),
            },
        ),
        (
            "type: index_is_placeholder",
            reader_true("index_is_placeholder"),
            ReaderKind::Contains {
                path: project("data/index.md"),
                text: "Run hiivmind-corpus-build".into(),
            },
        ),
        (
            "type: source_cloned\nid: react",
            file_reader("source_cloned:react"),
            ReaderKind::FileExists {
                path: project(".source/react"),
            },
        ),
        (
            "type: file_exists\npath: ./docs/a.md",
            file_reader("file_exists:./docs/a.md"),
            ReaderKind::FileExists {
                path: project("docs/a.md"),
            },
        ),
        (
            "type: file_exists\npath: /etc/hosts",
            file_reader("file_exists:/etc/hosts"),
            ReaderKind::FileExists {
                path: "/etc/hosts".into(),
            },
        ),
        (
            "type: directory_exists\npath: ~/corpora",
            file_reader("directory_exists:~/corpora"),
            ReaderKind::FileExists {
                path: "${HOME}/corpora".into(),
            },
        ),
        (
            "type: tool_available\ntool: git",
            reader_true("tool_available:git"),
            ReaderKind::OnPath {
                program: "git".into(),
            },
        ),
    ];
    for (pre, guard, kind) in cases {
        let (g, readers) = cond(pre);
        assert_eq!(g, guard, "{pre}");
        assert_eq!(readers.len(), 1, "{pre}");
        assert_eq!(readers[0].kind, kind, "{pre}");
    }
}

#[test]
fn source_exists_reads_the_configs_sources_list_on_disk() {
    let dir = tempfile::tempdir().expect("tempdir");
    let config = dir.path().join("data/config.yaml");
    std::fs::create_dir_all(config.parent().expect("dir")).expect("mkdir");
    let nodes = "  c:\n    type: conditional\n    condition:\n      type: source_exists\n      id: react\n    branches:\n      true: done\n      false: failed";
    let yaml = wf("c", nodes);
    let m = seed::engine::Machine::new(load(&yaml).chart);
    let ends_at = |text: &str| -> String {
        std::fs::write(&config, text).expect("write config");
        let vars = seed::store::readers::ReaderVars {
            project_dir: Some(dir.path().display().to_string()),
            ..Default::default()
        };
        let facts =
            seed::store::readers::sample(&m.chart.readers, &vars, std::time::SystemTime::now());
        let snap = m.start(&facts);
        m.status(&snap).current.join(" ")
    };
    for listed in [
        "sources:\n  - id: react\n    type: git\n",
        "sources:\r\n  - id: react\r\n",
        "sources:\n- id: react  # the main docs\n",
        "sources:\n  - id: \"react\"\n",
        "sources:\n  - type: git\n    id: 'react'\n",
        "sources: [{id: react, type: git}]\n",
        "sources:\n  - id:    react\n",
        "corpus: docs\nsources:\n  - id: vue\n  - id: react\n",
    ] {
        assert_eq!(ends_at(listed), "done", "{listed:?}");
    }
    for not_listed in [
        "sources:\n  - id: react-native\n",
        "sources:\n  - id: reactor\n",
        "sources:\n  - source_id: preact\n",
        "sources: []\n",
        "",
        // Text that says ` id: react` without the config listing it.
        "sources:\n  # - id: react\n  - id: vue\n",
        "archived:\n  - id: react\nsources: []\n",
        "sources:\n  - id: vue\n    note: \" id: react\"\n",
        "sources: [unclosed\n  - id: react\n",
    ] {
        assert_eq!(ends_at(not_listed), "failed", "{not_listed:?}");
    }
}

#[test]
fn state_preconditions_read_flags_and_variables() {
    let cases: Vec<(&str, Guard)> = vec![
        ("type: flag_set\nflag: x", Guard::Flag { name: "x".into() }),
        (
            "type: state_equals\nfield: source_type\nvalue: git",
            var("source_type", CmpOp::Eq, json!("git")),
        ),
        (
            "type: state_equals\nfield: n\nvalue: null",
            var("n", CmpOp::Eq, json!(null)),
        ),
        (
            "type: state_equals\nfield: flags.x\nvalue: false",
            Guard::Not {
                guard: Box::new(Guard::Flag { name: "x".into() }),
            },
        ),
        (
            "type: state_not_null\nfield: source_url",
            var("source_url", CmpOp::Ne, json!(null)),
        ),
        (
            "type: count_above\nfield: config.sources\nmin: 2",
            Guard::Count {
                name: "config.sources".into(),
                op: CmpOp::Gt,
                value: 2.0,
            },
        ),
        (
            "type: fetch_succeeded\nfrom: manifest",
            var("manifest.status", CmpOp::Eq, json!(200)),
        ),
        (
            "type: evaluate_expression\nexpression: \"n >= 2 && !x\"",
            Guard::All {
                of: vec![
                    var("n", CmpOp::Ge, json!(2)),
                    Guard::Not {
                        guard: Box::new(Guard::Flag { name: "x".into() }),
                    },
                ],
            },
        ),
    ];
    for (pre, guard) in cases {
        assert_eq!(cond(pre).0, guard, "{pre}");
    }
}

#[test]
fn composite_preconditions_nest() {
    let inner = "conditions:\n  - type: flag_set\n    flag: x\n  - type: config_exists";
    let parts = vec![
        Guard::Flag { name: "x".into() },
        file_reader("config_exists"),
    ];
    assert_eq!(
        cond(&format!("type: all_of\n{inner}")).0,
        Guard::All { of: parts.clone() }
    );
    assert_eq!(
        cond(&format!("type: any_of\n{inner}")).0,
        Guard::Any { of: parts.clone() }
    );
    assert_eq!(
        cond(&format!("type: none_of\n{inner}")).0,
        Guard::Not {
            guard: Box::new(Guard::Any { of: parts })
        }
    );
    let nested = "type: any_of\nconditions:\n  - type: none_of\n    conditions:\n      - type: index_exists\n  - type: flag_set\n    flag: x";
    assert!(matches!(cond(nested).0, Guard::Any { of } if matches!(of[0], Guard::Not { .. })));
}

#[test]
fn preconditions_evaluate_against_facts_and_state() {
    let yaml = |pre: &str| {
        wf("c", &format!("  c:\n    type: conditional\n    condition:\n{}\n    branches:\n      true: done\n      false: failed", indent(pre, 6)))
            .replace("name: t\n", "name: t\ninitial_state:\n  sources: [a, b, c]\n  manifest: {status: 200}\n")
    };
    let at = |pre: &str, facts: &[(&str, Value)]| Run::with_facts(&yaml(pre), facts).here();
    assert_eq!(
        at(
            "type: index_is_placeholder",
            &[("index_is_placeholder", json!(true))]
        ),
        "done"
    );
    assert_eq!(
        at("type: index_is_placeholder", &[]),
        "failed",
        "an unsampled reader is false"
    );
    assert_eq!(at("type: count_above\nfield: sources\nmin: 2", &[]), "done");
    assert_eq!(
        at("type: count_above\nfield: sources\nmin: 3", &[]),
        "failed"
    );
    assert_eq!(at("type: fetch_succeeded\nfrom: manifest", &[]), "done");
    assert_eq!(
        at(
            "type: tool_available\ntool: git",
            &[("tool_available:git", json!(true))]
        ),
        "done"
    );
}

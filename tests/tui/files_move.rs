//! State files move the dashboard: when a watched file changes, the feed samples the readers
//! (here: the real readers over real files in a temporary project) and the dashboard steps the
//! eventless transitions with what they say, marked as moved by files, before any hook event.
//! Snapshots before and after, at 40×20, 80×24 and 120×40.

use std::path::Path;
use std::time::SystemTime;

use serde_json::{Value, json};

use super::usability::{live, screen};
use crate::support::tui::{Script, walks};
use seed::engine::Facts;
use seed::store::reader_each;
use seed::store::readers::{self, ReaderVars};
use seed::tui::layout;
use seed::tui::{Model, Msg, update};

const SIZES: [(u16, u16); 3] = [(40, 20), (80, 24), (120, 40)];
/// When the feed saw the files change (unix ms): 10 s after the scripts' first record (their
/// clock starts at 2026-01-15T14:02:00Z); the screens are drawn 3 s later.
const CHANGED: i64 = 1_768_485_730_000;

fn vars(project: &Path) -> ReaderVars {
    ReaderVars {
        project_dir: Some(project.display().to_string()),
        ..ReaderVars::default()
    }
}

/// What the feed sends after reading the files of `project`: the readers' values, each
/// item's, and the clock 3 s on.
fn files_read(m: &mut Model, project: &Path) {
    let chart = &m.seq().expect("a sequence").machine.chart.clone();
    let v = vars(project);
    let facts: Facts = readers::sample(&chart.readers, &v, SystemTime::now());
    update(
        m,
        Msg::Facts {
            facts,
            now: CHANGED,
        },
    );
    if let Some(each) = &chart.each {
        let (items, left_out) = reader_each::sample(each, &chart.readers, &v, SystemTime::now());
        update(m, Msg::Items(items, left_out));
    }
    update(m, Msg::Tick(CHANGED + 3_000));
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().expect("a folder")).expect("folder");
    std::fs::write(path, text).expect("written");
}

fn deep(m: &Model, w: u16, h: u16) -> String {
    let buf = super::usability::draw_with(m, &super::usability::theme("default"), w, h);
    let Some(r) = layout::compute(buf.area, m).deep else {
        return String::new();
    };
    (r.y..r.y + r.height)
        .map(|y| {
            let row: String = (r.x..r.x + r.width).map(|x| buf[(x, y)].symbol()).collect();
            row.trim_end().to_string() + "\n"
        })
        .collect()
}

fn snapshots(name: &str, m: &Model) {
    for (w, h) in SIZES {
        insta::assert_snapshot!(format!("{name}_{w}x{h}"), screen(m, w, h));
    }
}

/// The organism at Generating in the log: the Genesis loop started, nothing written yet.
fn seaam_generating() -> Script {
    let mut s = Script::of("seaam_organ_lifecycle", "s-files");
    walks::dna(&mut s, 1, 0, 0, (0, 2));
    s.lifecycle("SessionStart")
        .prompt("grow an observer organ")
        .call(
            "Bash",
            json!({"command": "python -m seaam.genesis"}),
            5000,
            Some(true),
        );
    s
}

fn dna(active: &[&str], failures: Value) -> String {
    json!({
        "goals": [
            { "text": "I must be able to perceive the file system.", "achieved": true },
            { "text": "I must have persistent memory.", "achieved": false }
        ],
        "blueprint": {
            "soma.perception.observer": { "description": "watches files", "version": 1 },
            "soma.memory.store": { "description": "remembers", "version": 1 }
        },
        "failures": failures,
        "active_modules": active,
    })
    .to_string()
}

/// Seed 002 §3: "Generating --> Materialized: Code written to disk", "Importing --> Failed:
/// ImportError", "Active --> Running: Thread spawned" — per organ, as dna.json lists them.
#[test]
fn seaam_s_organs_move_when_dna_json_changes() {
    let mut m = live(&seaam_generating());
    let statechart = |m: &Model| m.status().expect("status").current.clone();
    assert_eq!(statechart(&m), ["Generating"]);
    assert!(m.moved().is_none());
    snapshots("seaam_before_files", &m);

    let project = tempfile::tempdir().expect("tempdir");
    let p = project.path();
    write(
        &p.join("soma/perception/observer.py"),
        "def start():\n    pass\n",
    );
    write(&p.join("soma/memory/store.py"), "import sqlite4\n");
    let failure = json!([{ "module_name": "soma.memory.store", "error_type": "import",
        "message": "No module named 'sqlite4'" }]);
    write(
        &p.join("dna.json"),
        &dna(&["soma.perception.observer"], failure),
    );
    files_read(&mut m, p);

    // The organism: its module written and active, but one organ failed to import.
    let moved = m.moved().expect("moved by files");
    assert_eq!(moved.files[0].file, "dna.json");
    let items = m.derived.items.clone().expect("organs");
    let states: Vec<(String, Vec<String>)> = items
        .items
        .iter()
        .map(|i| (i.name.clone(), i.states.clone()))
        .collect();
    assert_eq!(
        states,
        [
            (
                "soma.perception.observer".to_string(),
                vec!["Running".to_string()]
            ),
            ("soma.memory.store".to_string(), vec!["Failed".to_string()]),
        ]
    );
    assert_eq!(
        items.progress_line().as_deref(),
        Some("progress: 1 of 2 goals achieved")
    );
    // The mark at every size (on two lines in a narrow pane); the organs where there is room.
    for (w, h) in SIZES {
        let d = deep(&m, w, h);
        assert!(d.contains("moved by files:"), "{w}x{h}\n{d}");
        assert!(d.contains("dna.json changed 3 s ago"), "{w}x{h}\n{d}");
        assert!(d.contains("Running"), "{w}x{h}\n{d}");
    }
    for (w, h) in [(80, 24), (120, 40)] {
        let d = deep(&m, w, h);
        assert!(d.contains("Failed"), "{w}x{h}\n{d}");
        assert!(
            d.contains("progress: 1 of 2 goals achieved"),
            "{w}x{h}\n{d}"
        );
    }
    snapshots("seaam_after_files", &m);
}

/// Seed 000 §tier 2: an active waypoint journey puts its constraint in force; the dashboard
/// shows it and no longer lists Edit as allowed, before the next hook event.
#[test]
fn a_journey_becoming_active_puts_its_constraint_in_force_on_screen() {
    let mut s = Script::of("compound_intelligence", "s-wp");
    s.fact("waypoint_status", Value::Null)
        .fact("starlog_status", json!(2))
        .fact("flight_status", Value::Null)
        .lifecycle("SessionStart")
        .prompt("start a waypoint journey on the parser");
    for tool in [
        "mcp__seed__who_am_i",
        "mcp__seed__what_do_i_do",
        "mcp__starlog__check",
        "mcp__starlog__orient",
        "mcp__starship__fly",
        "mcp__waypoint__start_waypoint_journey",
    ] {
        s.call(tool, json!({}), 100, Some(true));
    }
    let mut m = live(&s);
    let allowed = |m: &Model| Vec::<String>::from(m.status().expect("status").allowed.clone());
    let in_force = "context.waypoint_active_learning.on".to_string();
    assert!(allowed(&m).contains(&"Edit".to_string()));
    assert!(!m.status().expect("status").current.contains(&in_force));
    snapshots("journey_before_files", &m);

    let heaven = tempfile::tempdir().expect("tempdir");
    // The two starlog registries the log already counted, and the journey now active.
    for r in ["registry/a.json", "registry/b.json"] {
        write(&heaven.path().join(r), "{}");
    }
    write(
        &heaven.path().join("waypoints/parser.json"),
        r#"{"status":"active"}"#,
    );
    let v = ReaderVars {
        heaven_data_dir: Some(heaven.path().display().to_string()),
        ..ReaderVars::default()
    };
    let chart = m.seq().expect("seq").machine.chart.clone();
    let facts = readers::sample(&chart.readers, &v, SystemTime::now());
    update(
        &mut m,
        Msg::Facts {
            facts,
            now: CHANGED,
        },
    );
    update(&mut m, Msg::Tick(CHANGED + 3_000));

    assert!(m.status().expect("status").current.contains(&in_force));
    assert!(
        !allowed(&m).contains(&"Edit".to_string()),
        "{:?}",
        allowed(&m)
    );
    let moved = m.moved().expect("moved by files").line(m.now);
    assert_eq!(moved, "moved by files: waypoints/*.json changed 3 s ago");
    snapshots("journey_after_files", &m);
}

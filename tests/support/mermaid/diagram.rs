//! Reading one Mermaid diagram in a test: load it (or expect its error), find states,
//! transitions and lints by key, and walk it through a list of events.

use seed::dialects::{LoadError, Loaded, load_text};
use seed::engine::ir::{Chart, State, Transition};
use seed::engine::lint::Lint;
use seed::engine::{Event, Facts, Machine, Phase};

pub fn load(text: &str) -> Loaded {
    match load_text("t.mmd", text, &|_| None) {
        Ok(l) => l,
        Err(e) => panic!("should load: {e}"),
    }
}

pub fn error(text: &str) -> LoadError {
    load_text("t.mmd", text, &|_| None).expect_err("should be rejected")
}

pub fn state<'a>(c: &'a Chart, key: &str) -> &'a State {
    c.states
        .iter()
        .find(|s| s.key == key)
        .unwrap_or_else(|| panic!("no state `{key}` in {:?}", keys(c)))
}

pub fn keys(c: &Chart) -> Vec<&str> {
    c.states.iter().skip(1).map(|s| s.key.as_str()).collect()
}

pub fn from<'a>(c: &'a Chart, key: &str) -> Vec<&'a Transition> {
    let id = state(c, key).id;
    c.transitions.iter().filter(|t| t.source == id).collect()
}

pub fn lints<'a>(l: &'a Loaded, code: &str) -> Vec<&'a Lint> {
    l.warnings.iter().filter(|w| w.code == code).collect()
}

/// Advance through `events` and return the active atomic keys.
pub fn walk(l: &Loaded, events: &[Event]) -> Vec<String> {
    let m = Machine::new(l.chart.clone());
    let facts = Facts::new();
    let mut snap = m.start(&facts);
    for e in events {
        m.step(&mut snap, Phase::Advance, e, &facts);
    }
    m.status(&snap).current
}

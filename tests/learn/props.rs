//! Whatever the sessions did, a draft that keeps every edge it saw lets each of them through:
//! the miner reads a session exactly as the engine steps it (calls side by side, failures),
//! and the draft is always a sequence that loads without errors.

use proptest::prelude::*;
use serde_json::json;

use crate::transcripts::*;
use seed::learn::{self, Options, Thresholds};

fn a_call() -> impl Strategy<Value = Call> {
    let c = prop::sample::select(vec![
        edit("/p/a.rs"),
        call("Write", json!({"file_path": "/p/b.rs", "content": "x"})),
        bash("cargo test"),
        bash("git status"),
        bash("ls -la"),
        call(
            "Agent",
            json!({"subagent_type": "Explore", "prompt": "look"}),
        ),
        read("/p/a.rs"),
    ]);
    (c, any::<bool>()).prop_map(|(c, failing)| if failing { c.failing() } else { c })
}

fn a_session() -> impl Strategy<Value = Vec<Vec<Call>>> {
    prop::collection::vec(prop::collection::vec(a_call(), 1..3), 0..12)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    #[test]
    fn a_draft_of_every_edge_refuses_nothing(sessions in prop::collection::vec(a_session(), 1..4)) {
        let dir = tempfile::tempdir().unwrap();
        for (i, turns) in sessions.iter().enumerate() {
            let mut w = Writer::new(&format!("p{i}"), "go");
            for t in turns {
                w.turn(Turn::Together(t.clone()));
            }
            w.end().write(dir.path());
        }
        let opts = Options {
            name: "every".into(),
            thresholds: Thresholds { min_count: 1, dependency: -1.0 },
        };
        match learn::learn(&[dir.path().to_path_buf()], &opts) {
            Ok(l) => {
                for s in &l.sessions {
                    prop_assert_eq!(s.refused, 0, "{:?}\n{}", s.first_refused, l.draft.diagram);
                }
                let diagram = l.draft.diagram.clone();
                let resolve = move |_: &str| Some(diagram.clone());
                let loaded = seed::dialects::load_text("every.toml", &l.draft.manifest, &resolve);
                let loaded = loaded.map_err(|e| TestCaseError::fail(e.to_string()))?;
                let machine = seed::engine::Machine::new(loaded.chart);
                let errors: Vec<_> = machine
                    .lint()
                    .into_iter()
                    .filter(|w| w.severity == seed::engine::lint::Severity::Error)
                    .collect();
                prop_assert!(errors.is_empty(), "{:?}", errors);
            }
            // Sessions of reads alone, or with no calls, leave nothing to learn.
            Err(e) => prop_assert!(e.starts_with("nothing to learn from"), "{}", e),
        }
    }
}

//! Properties of the engine that hold for every shipped sequence and any event stream.

use proptest::prelude::*;
use seed::dialects;
use seed::engine::ir::Trigger;
use seed::engine::{Event, Facts, Machine, Pattern, Phase};
use serde_json::{Value, json};

fn machines() -> Vec<Machine> {
    dialects::builtin_names()
        .into_iter()
        .map(|n| Machine::new(dialects::builtin(&n).expect("exists").expect("loads").chart))
        .collect()
}

/// The calls a chart mentions, plus calls it does not know.
fn vocabulary(m: &Machine) -> Vec<Event> {
    let mut out = vec![
        Event::tool("Bash", json!({"command": "ls"})),
        Event::tool("Read", json!({"file_path": "/x"})),
        Event::tool("mcp__unknown__tool", Value::Null),
        Event::prompt("hello"),
        Event::lifecycle("SessionStart"),
        Event::tool_error("Edit", Value::Null),
    ];
    for t in &m.chart.transitions {
        if let Trigger::Event(p) = &t.trigger {
            let a = &p.alts[0];
            let mut input = serde_json::Map::new();
            for (ptr, matcher) in &a.input {
                if let seed::engine::ir::InputMatcher::Glob(g) = matcher {
                    input.insert(
                        ptr.trim_start_matches('/').to_string(),
                        Value::String(g.replace('*', "x")),
                    );
                }
            }
            let name = seed::engine::event::claude_tool_name(&a.glob.replace('*', "x"));
            out.push(Event::tool(&name, Value::Object(input)));
        }
    }
    out
}

fn facts_for(choice: u8) -> Facts {
    let mut f = Facts::new();
    match choice % 3 {
        0 => {}
        1 => {
            f.insert("waypoint_status".into(), json!("active"));
        }
        _ => {
            f.insert("flight_status".into(), json!("debugging"));
        }
    }
    f
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Along forward transitions (no target ranked before its source), progress never drops.
    #[test]
    fn progress_never_decreases_along_forward_transitions(picks in prop::collection::vec((any::<u16>(), any::<u8>()), 1..40)) {
        for m in machines() {
            let vocab = vocabulary(&m);
            let mut snap = m.start(&Facts::new());
            for (pick, f) in &picks {
                let ev = &vocab[*pick as usize % vocab.len()];
                let facts = facts_for(*f);
                let before = m.progress(&snap).overall;
                let pre = snap.clone();
                let report = m.step(&mut snap, Phase::Advance, ev, &facts);
                // Not forward: where the configuration before and the target part ways, the
                // target's interval starts before the active one ends (a retry, a re-entry, a
                // `/command` that jumps sideways or back).
                let backward = report.microsteps.iter().flat_map(|ms| ms.transitions.iter()).any(|&ti| {
                    let t = &m.chart.transitions[ti];
                    let Some(mut d) = m.domain(ti) else { return false };
                    t.targets.iter().any(|&target| loop {
                        let st = m.chart.state(d);
                        let Some(ex) = st.children.iter().copied().find(|c| pre.is_active(*c)) else { return false };
                        let Some(en) = st.children.iter().copied().find(|c| m.chart.is_descendant_or_self(target, *c)) else {
                            return false;
                        };
                        if ex != en {
                            // Forward means along the graph: the target starts where the
                            // active step ends or later.
                            return m.interval(en).0 + 1e-9 < m.interval(ex).1;
                        }
                        d = ex;
                    })
                });
                let after = m.progress(&snap).overall;
                if !backward {
                    prop_assert!(after + 1e-9 >= before, "{}: {} -> {} on {}", m.chart.name, before, after, ev);
                }
                prop_assert!(snap.highest + 1e-9 >= after);
            }
        }
    }

    /// The same snapshot, event and facts always give the same report and snapshot.
    #[test]
    fn step_is_deterministic(picks in prop::collection::vec((any::<u16>(), any::<u8>(), any::<bool>()), 1..30)) {
        for m in machines() {
            let vocab = vocabulary(&m);
            let mut snap = m.start(&Facts::new());
            for (pick, f, gate) in &picks {
                let ev = &vocab[*pick as usize % vocab.len()];
                let phase = if *gate { Phase::Gate } else { Phase::Advance };
                let facts = facts_for(*f);
                let mut twin = snap.clone();
                let a = m.step(&mut snap, phase, ev, &facts);
                let b = m.step(&mut twin, phase, ev, &facts);
                prop_assert_eq!(&a, &b);
                prop_assert_eq!(&snap, &twin);
            }
        }
    }

    /// Folding a list equals stepping one by one.
    #[test]
    fn fold_equals_stepping(picks in prop::collection::vec((any::<u16>(), any::<u8>(), 0u8..3), 0..30)) {
        for m in machines() {
            let vocab = vocabulary(&m);
            let items: Vec<(Phase, Event, Facts)> = picks
                .iter()
                .map(|(p, f, ph)| {
                    let phase = [Phase::Gate, Phase::Advance, Phase::Stop][*ph as usize];
                    (phase, vocab[*p as usize % vocab.len()].clone(), facts_for(*f))
                })
                .collect();
            let folded = m.fold(items.iter().map(|(p, e, f)| (*p, e, f)));
            let first = items.first().map(|(_, _, f)| f.clone()).unwrap_or_default();
            let mut snap = m.start(&first);
            for (p, e, f) in &items {
                m.step(&mut snap, *p, e, f);
            }
            prop_assert_eq!(folded, snap);
        }
    }

    /// `server.tool` and `mcp__server__tool` name the same tool, both ways.
    #[test]
    fn patterns_round_trip_between_spellings(
        server in "[A-Za-z0-9-][A-Za-z0-9_-]{0,10}[A-Za-z0-9-]",
        tool in "[A-Za-z0-9_-]{1,12}",
    ) {
        prop_assume!(!server.contains("__"));
        let claude = format!("mcp__{server}__{tool}");
        let ev = Event::tool(&claude, Value::Null);
        prop_assert_eq!(&ev.name, &format!("{server}.{tool}"));
        prop_assert_eq!(seed::engine::event::claude_tool_name(&ev.name), claude.clone());
        let aliases = Default::default();
        for p in [format!("{server}.{tool}"), claude.clone(), format!("tool:{server}.{tool}"), format!("{server}.*"), format!("mcp__{server}__*")] {
            prop_assert!(Pattern::parse(&p).unwrap().matches(&ev, &aliases), "{} should match {}", p, claude);
        }
        let other = Event::tool(&format!("mcp__{server}x__{tool}"), Value::Null);
        let exact = Pattern::parse(&format!("{server}.{tool}")).unwrap();
        prop_assert!(!exact.matches(&other, &aliases));
    }
}

/// A chain `s0 → s1 → … → [*]` on Bash calls, with the given weights on its steps.
fn weighted_chain(weights: &[f64]) -> seed::engine::Machine {
    let mut text = String::from("stateDiagram-v2\n  [*] --> s0\n");
    for i in 0..weights.len() {
        let to = if i + 1 == weights.len() {
            "[*]".to_string()
        } else {
            format!("s{}", i + 1)
        };
        text.push_str(&format!("  s{i} --> {to} : Bash\n"));
    }
    let mut chart = seed::dialects::load_text("w.mmd", &text, &|_| None)
        .expect("loads")
        .chart;
    for (i, w) in weights.iter().enumerate() {
        let id = chart.find(&format!("s{i}")).expect("step");
        chart.states[id.index()].weight = *w;
    }
    seed::engine::Machine::new(chart)
}

#[test]
fn all_zero_weights_count_the_steps_equally() {
    let m = weighted_chain(&[0.0, 0.0, 0.0, 0.0]);
    let facts = seed::engine::Facts::new();
    let mut snap = m.start(&facts);
    let bash = seed::engine::Event::tool("Bash", serde_json::Value::Null);
    let mut seen = vec![m.progress(&snap).overall];
    for _ in 0..4 {
        m.step(&mut snap, seed::engine::Phase::Advance, &bash, &facts);
        seen.push(m.progress(&snap).overall.round());
    }
    assert_eq!(seen, [0.0, 25.0, 50.0, 75.0, 100.0]);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn progress_stays_in_range_rises_and_ends_at_one(
        weights in proptest::collection::vec(prop_oneof![Just(0.0), 0.0f64..5.0], 1..6)
    ) {
        let m = weighted_chain(&weights);
        let facts = seed::engine::Facts::new();
        let mut snap = m.start(&facts);
        let bash = seed::engine::Event::tool("Bash", serde_json::Value::Null);
        let mut last = m.progress(&snap).highest;
        for _ in 0..weights.len() {
            m.step(&mut snap, seed::engine::Phase::Advance, &bash, &facts);
            let p = m.progress(&snap);
            prop_assert!((0.0..=100.0).contains(&p.overall), "{p:?}");
            prop_assert!(p.highest >= last, "highest never falls: {p:?}");
            last = p.highest;
        }
        let p = m.progress(&snap);
        prop_assert!(p.done && (p.overall - 100.0).abs() < 1e-9, "{p:?}");
    }
}

//! Seed 004's diagrams (§1–§7) load as written, alone and nested by `hope.toml`, with every
//! state present in the IR; and the Mermaid sequences shipped in `sequences/` validate.

use seed::dialects::{self, EMBEDDED, load_text};
use seed::engine::Machine;
use seed::engine::ir::StateKind;
use seed::engine::lint::Severity;

/// Every state the seed draws in §1–§7, as IR keys (nesting paths).
const HOPE_STATES: &[&str] = &[
    // §1 pipeline
    "user_need",
    "soul",
    "route",
    "intent",
    "shape",
    "loop",
    "consult",
    "completed",
    // §2 intent
    "intent.acknowledge",
    "intent.clarify",
    "intent.score_check",
    "intent.echo_check",
    "intent.refine",
    "intent.emit_brief",
    // §3 shape
    "shape.extract",
    "shape.expert",
    "shape.synthesize",
    "shape.output",
    // §4 loop
    "loop.spec_scoring",
    "loop.shape_approval",
    "loop.decompose",
    "loop.wave_exec",
    "loop.stall",
    "loop.expert_review",
    "loop.verify_gate",
    "loop.review_feedback",
    "loop.cancel",
    "loop.circuit_break",
    "loop.paused",
    // §5 consult
    "consult.sources",
    "consult.sources.soul_explore",
    "consult.sources.shape_step",
    "consult.sources.loop_stall",
    "consult.sources.loop_review",
    "consult.sources.user_cmd",
    "consult.blocklist",
    "consult.mode_check",
    "consult.single",
    "consult.single.detect_expert",
    "consult.single.load_profile",
    "consult.single.assess_coverage",
    "consult.single.conf_check",
    "consult.single.generate",
    "consult.single.refuse",
    "consult.panel",
    "consult.panel.panel_route",
    "consult.panel.select_experts",
    "consult.panel.debate",
    "consult.panel.surface_tensions",
    "consult.panel.synthesize",
    "consult.panel.review_select",
    "consult.panel.review_findings",
    "consult.explore",
    "consult.explore.explore_select",
    "consult.explore.brainstorm",
    "consult.explore.shortlist",
    "consult.explore.user_pick",
    "consult.unblock",
    "consult.unblock.parse_blocker",
    "consult.unblock.diagnose",
    "consult.unblock.recommend",
    "consult.unblock.escalate",
    // §6 bond (added at the top level: §1 does not draw it)
    "bond",
    "bond.sources",
    "bond.sources.user_cmd",
    "bond.sources.shape_trigger",
    "bond.assess",
    "bond.fitness_check",
    "bond.redirect",
    "bond.design",
    "bond.confirm",
    "bond.create",
    // §7 soul
    "soul.hook",
    "soul.check_marker",
    "soul.marker_check",
    "soul.detect_type",
    "soul.ask_engagement",
    "soul.audit",
    "soul.footer",
    "soul.audit_result",
    "soul.intent_interrupt",
    "soul.explore_interrupt",
];

#[test]
fn every_state_of_seed_004_is_in_the_hope_chart() {
    assert_eq!(HOPE_STATES.len(), 82);
    let l = dialects::builtin("hope")
        .expect("builtin")
        .expect("hope loads");
    let c = &l.chart;
    for k in HOPE_STATES {
        assert!(c.find(k).is_some(), "missing `{k}`");
    }
    // The rest are the ends the diagrams' `[*]` (and their leaves) lead to.
    let synthesized: Vec<&str> = c
        .states
        .iter()
        .skip(1)
        .map(|s| s.key.as_str())
        .filter(|k| !HOPE_STATES.contains(k))
        .collect();
    assert_eq!(synthesized.len(), 12, "{synthesized:?}");
    assert!(synthesized.iter().all(|k| k.ends_with("__final")));
    assert_eq!(c.states.len() - 1, 82 + 12);
    // Kinds and labels come from the diagrams.
    for choice in [
        "route",
        "intent.score_check",
        "consult.mode_check",
        "consult.single.conf_check",
        "consult.panel.panel_route",
        "bond.fitness_check",
        "soul.marker_check",
        "soul.audit_result",
    ] {
        assert_eq!(
            c.state(c.find(choice).expect("state")).kind,
            StateKind::Choice,
            "{choice}"
        );
    }
    let wave = c.state(c.find("loop.wave_exec").expect("state"));
    assert_eq!(wave.label, "wave_execution");
    assert!(wave.notes[0].starts_with("identify ready"));
    assert_eq!(
        c.state(c.find("soul.check_marker").expect("state")).label,
        "check [SESSION] marker"
    );
}

#[test]
fn each_seed_004_diagram_loads_on_its_own() {
    let parts: Vec<&(&str, &str)> = EMBEDDED
        .iter()
        .filter(|(f, _)| f.starts_with("hope/"))
        .collect();
    assert_eq!(parts.len(), 7);
    for (file, text) in parts {
        // Prose labels are documentation, never errors.
        let l = load_text(file, text, &|_| None).unwrap_or_else(|e| panic!("{e}"));
        let m = Machine::new(l.chart);
        // Alone, no manifest binds the prose edges: one between states with no activity is
        // never taken (it would otherwise fire at once). So validate's errors are dead ends
        // whose every way out is such an edge, and nothing else.
        for x in m.lint() {
            if x.severity != Severity::Error {
                continue;
            }
            assert_eq!(x.code, "dead-end", "{file}: {x:?}");
            let key = x.message.split('`').nth(1).expect("a state");
            let id = m.chart.find(key).expect("state");
            let outs: Vec<_> = m.chart.transitions_from(id).map(|(_, t)| t).collect();
            assert!(!outs.is_empty(), "{file}: {key}");
            for t in outs {
                assert!(
                    t.guard.as_ref().is_some_and(|g| g.is_never())
                        && t.label.as_deref().is_some_and(|l| !l.contains('[')),
                    "{file}: {key}: {t:?}"
                );
            }
        }
    }
}

#[test]
fn shipped_mermaid_sequences_validate_without_errors() {
    for name in ["hope", "odyssean_anchor", "seaam_organ_lifecycle"] {
        let l = dialects::builtin(name).expect("builtin").expect("loads");
        let mut lints = l.warnings.clone();
        lints.extend(Machine::new(l.chart.clone()).lint());
        let errors: Vec<_> = lints
            .iter()
            .filter(|x| x.severity == Severity::Error)
            .collect();
        assert!(errors.is_empty(), "{name}: {errors:?}");
        assert!(
            lints.iter().all(|x| x.code != "eventless-loop"),
            "{name}: {lints:?}"
        );
    }
}

//! The skill that runs a workflow (seed 003: `skills/<skill>/workflow.yaml`) and the skills its
//! endings' recoveries name: the skill is neutral while the workflow runs and starts it again
//! from any ending; what a recovery says to run is allowed at that ending.

use crate::support::workflow as workflow_common;

use seed::engine::{Decision, Event, Phase, VerdictKind};
use serde_json::{Value, json};
use workflow_common::walk::*;
use workflow_common::*;

const OWN: &str = "hiivmind-corpus:hiivmind-corpus-add-source";

fn skill(name: &str) -> Value {
    json!({ "skill": name })
}

/// The verdict on a Skill call, and where the workflow is after its PostToolUse.
fn run_skill(r: &mut Run, name: &str) -> (VerdictKind, Decision) {
    let v = r.call("Skill", skill(name));
    (v.kind, v.decision)
}

const NEUTRAL: (VerdictKind, Decision) = (VerdictKind::Neutral, Decision::Allow);
const ADVANCE: (VerdictKind, Decision) = (VerdictKind::Advance, Decision::Allow);

#[test]
fn the_workflows_own_skill_is_neutral_while_it_runs() {
    let mut r = start();
    assert_eq!(run_skill(&mut r, OWN), NEUTRAL);
    assert_eq!(r.here(), "locate_corpus", "calling the skill moves nothing");
    walk(
        &mut r,
        &[
            read_config(8),
            ask("Git repository", "collect_git_url", 50, ASK),
        ],
    );
    // Installed on its own (no plugin), the skill is called by its bare name.
    assert_eq!(run_skill(&mut r, "hiivmind-corpus-add-source"), NEUTRAL);
    assert_eq!(r.here(), "collect_git_url");
    // Another skill of the plugin is no step of this workflow (enforce: denied).
    let v = r.gate("Skill", skill("hiivmind-corpus:hiivmind-corpus-build"));
    assert_eq!((v.kind, v.decision), (VerdictKind::OffPath, Decision::Deny));
    assert_eq!(
        r.gate("Skill", skill("other-plugin:hiivmind-corpus-add-source"))
            .decision,
        Decision::Deny,
        "the same name from another plugin is another skill"
    );
}

#[test]
fn from_an_error_ending_the_skill_starts_the_workflow_again_from_scratch() {
    let mut r = start();
    walk(
        &mut r,
        &[
            read_config(8),
            ask("Git repository", "collect_git_url", 50, ASK),
            ask("https://github.com/acme/private", "name_source", 58, ASK),
        ],
    );
    r.call("AskUserQuestion", answer("private"));
    r.call("Bash", json!({"command": "mkdir -p .source"}));
    r.fail(
        "Bash",
        json!({"command": "git clone https://github.com/acme/private .source/private"}),
    );
    ended(&r, "error_clone_failed", false);
    // The ending's recovery says to run the skill again: that is the next call.
    assert_eq!(r.next_tool().as_deref(), AGAIN);
    assert_eq!(run_skill(&mut r, OWN), ADVANCE);
    assert_eq!(r.here(), "locate_corpus");
    assert!(!r.snap.halted && r.snap.failed.is_none(), "no longer over");
    // Flags and variables are back to `initial_state`.
    assert_eq!(
        (
            r.var("source_url"),
            r.var("source_id"),
            r.var("source_type")
        ),
        (Value::Null, Value::Null, Value::Null)
    );
    assert_eq!(r.flag("source_type_git"), Some(false));
    assert_eq!(
        r.var("config"),
        Value::Null,
        "what the last run read is gone"
    );
    // Started over at 0%; the highest point is the one reached before the failure (a failure
    // is no progress).
    let p = r.m.progress(&r.snap);
    assert_eq!(p.overall, 0.0);
    assert!((p.highest - 69.4).abs() < 0.1, "highest {}", p.highest);
    // And the second run walks like the first.
    walk(
        &mut r,
        &[read_config(8), ask("Web pages", "collect_web_url", 17, ASK)],
    );
}

#[test]
fn from_a_success_ending_the_skill_adds_another_source() {
    let mut r = start();
    walk(
        &mut r,
        &[
            read_corpus(CORPUS_WITH_SOURCES, 8),
            ask("Local files", "ask_local_placement", 17, ASK),
            ask("Files are in place", "name_source", 58, ASK),
            ask("notes", "write_source_entry", 75, WRITE_CONFIG),
            call(
                "Edit",
                json!({"file_path": CONFIG, "old_string": "a", "new_string": "b"}),
                "success",
                100,
                AGAIN,
            ),
        ],
    );
    ended(&r, "success", true);
    assert_eq!(run_skill(&mut r, "hiivmind-corpus-add-source"), ADVANCE);
    assert_eq!(r.here(), "locate_corpus");
}

#[test]
fn a_slash_command_of_the_skill_starts_it_again_too() {
    let mut r = start();
    walk(
        &mut r,
        &[read_config(8), ask("Web pages", "collect_web_url", 17, ASK)],
    );
    r.call("AskUserQuestion", answer("Cancel"));
    ended(&r, "cancelled", false);
    let cmd = Event::prompt(&format!("/{OWN} https://github.com/acme/docs"));
    r.m.step(&mut r.snap, Phase::Advance, &cmd, &r.facts.clone());
    assert_eq!(r.here(), "locate_corpus");
}

#[test]
fn without_a_config_the_skill_its_recovery_names_is_allowed_and_the_workflow_waits() {
    // No data/config.yaml: the session starts at the entry gate's failure ending.
    let mut r = Run::of(machine(), &[]);
    ended(&r, "error_no_config", false);
    assert_eq!(
        r.next_tool().as_deref(),
        Some("Skill(skill=\"hiivmind-corpus-init\")")
    );
    // The recovery, `hiivmind-corpus-init`, may run: bare or from the plugin.
    assert_eq!(run_skill(&mut r, "hiivmind-corpus-init"), NEUTRAL);
    assert_eq!(
        run_skill(&mut r, "hiivmind-corpus:hiivmind-corpus-init"),
        NEUTRAL
    );
    assert_eq!(r.here(), "error_no_config");
    // The workflow is over, so it locks nothing out: a call the recovery does not name goes
    // through, told what the ending says to do.
    let v = r.gate("Skill", skill("hiivmind-corpus:hiivmind-corpus-build"));
    assert_eq!(v.decision, Decision::Allow);
    assert!(
        v.warning
            .as_deref()
            .is_some_and(|w| w.contains("Recovery: hiivmind-corpus-init")),
        "{:?}",
        v.warning
    );
    // Run again while the config is still missing: the same ending.
    assert_eq!(run_skill(&mut r, OWN), ADVANCE);
    ended(&r, "error_no_config", false);
    // Once init has written it (the host samples the file on each hook), it starts for real.
    r.facts.insert("config_exists".into(), json!(true));
    assert_eq!(run_skill(&mut r, OWN), ADVANCE);
    assert_eq!(r.here(), "locate_corpus");
}

#[test]
fn the_skill_defaults_to_the_workflows_name_and_the_file_may_name_another() {
    let base = wf(
        "ask",
        "  ask:\n    type: user_prompt\n    prompt:\n      question: Go?\n      options:\n        - id: go\n          label: Go\n    on_response:\n      go:\n        next_node: done",
    );
    let named = |name: &str| base.replace("name: t\n", &format!("name: {name}\n"));
    // `add_source` is the skill `add-source`, from any plugin or none.
    let mut r = Run::new(&named("add_source"));
    assert_eq!(run_skill(&mut r, "add-source"), NEUTRAL);
    assert_eq!(run_skill(&mut r, "corpus:add-source"), NEUTRAL);
    assert_eq!(
        r.gate("Skill", skill("add_source")).kind,
        VerdictKind::OffPath
    );
    r.call("AskUserQuestion", answer("Go"));
    assert_eq!(r.here(), "done");
    assert_eq!(run_skill(&mut r, "corpus:add-source"), ADVANCE);
    assert_eq!(r.here(), "ask");

    let own = base.replace("name: t\n", "name: t\nskill: /acme:corpus-add\n");
    let mut r = Run::new(&own);
    assert_eq!(run_skill(&mut r, "acme:corpus-add"), NEUTRAL);
    assert_eq!(r.gate("Skill", skill("t")).kind, VerdictKind::OffPath);
}

#[test]
fn a_skill_that_is_no_name_is_refused_where_it_is_written() {
    let base = wf(
        "ask",
        "  ask:\n    type: user_prompt\n    prompt:\n      question: Go?\n    on_response:\n      go:\n        next_node: done",
    );
    for bad in ["\"*\"", "\"a b\"", "\"a:b:c\"", "\"\"", "\"x/../y\""] {
        let e = load_err(&base.replace("name: t\n", &format!("name: t\nskill: {bad}\n")));
        assert_eq!((e.line, e.col), (2, 8), "{bad}: {e}");
        assert!(e.message.contains("`skill` must be a skill's name"), "{e}");
    }
    let e = load_err(&base.replace("name: t\n", "name: t\nskill: [a, b]\n"));
    assert_eq!(e.line, 2, "{e}");
}

#[test]
fn restarts_and_recovery_skills_leave_the_workflows_shape_alone() {
    // The restart hangs on the root and the recovery skills move nothing: progress still
    // ends at the endings and validate finds nothing new.
    let l = seed::dialects::builtin("hiivmind_add_source")
        .expect("built in")
        .expect("loads");
    assert!(l.warnings.is_empty(), "{:?}", l.warnings);
    let m = seed::engine::Machine::new(l.chart.clone());
    assert!(m.lint().is_empty(), "{:?}", m.lint());
    let r = start();
    assert!(
        !r.m.progress(&r.snap).in_loop,
        "no loop through the endings"
    );
}

#[test]
fn status_lists_the_skill_as_the_agent_calls_it_once() {
    let mut r = start();
    walk(
        &mut r,
        &[
            read_config(8),
            ask("Git repository", "collect_git_url", 50, ASK),
        ],
    );
    let st = r.m.status(&r.snap);
    let own = format!("Skill(skill=\"{OWN}\")");
    for (list, entries) in [
        ("neutral", &st.neutral),
        ("allowed", &st.allowed.calls().to_vec()),
    ] {
        assert_eq!(
            entries.iter().filter(|e| **e == own).count(),
            1,
            "{list}: {entries:?}"
        );
        // Calls, not the patterns that match them: no kind prefix, no `|` alternatives.
        for e in entries.iter() {
            assert!(!e.starts_with("skill:") && !e.contains('|'), "{list}: {e}");
        }
    }
    let text = seed::report::status_text(&st);
    assert!(text.contains(&own) && !text.contains("skill:"), "{text}");
    let json = seed::report::status_json(&st);
    assert!(!json["neutral"].to_string().contains("skill:"), "{json}");
    let what = seed::mcp::content::default_what_do_i_do(&r.m, &r.snap);
    assert!(what.contains(&own) && !what.contains("skill:"), "{what}");
}

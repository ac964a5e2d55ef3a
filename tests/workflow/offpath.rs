//! The shipped `hiivmind_add_source` workflow off the happy path: failure endings with their
//! recovery, and off-path calls denied (enforce) or advised (advise) with the way back.

use crate::support::workflow as workflow_common;

use seed::engine::ir::{Enforcement, StateKind};
use seed::engine::{Decision, VerdictKind};
use serde_json::json;
use workflow_common::walk::*;
use workflow_common::{Run, answer};

#[test]
fn a_failed_clone_ends_in_error_with_its_recovery() {
    let mut r = start();
    walk(
        &mut r,
        &[
            read_config(8),
            ask("Git repository", "collect_git_url", 50, ASK),
            ask("https://github.com/acme/private", "name_source", 58, ASK),
            ask(
                "private",
                "clone_source.create_directory",
                67,
                Some("Bash(command=\"mkdir -p .source\")"),
            ),
            call(
                "Bash",
                json!({"command": "mkdir -p .source"}),
                "clone_source.clone_repo",
                69,
                Some(
                    "Bash(command=\"git clone --depth 1 https://github.com/acme/private .source/private\")",
                ),
            ),
            Step {
                ok: false,
                ..call(
                    "Bash",
                    json!({"command": "git clone https://github.com/acme/private .source/private"}),
                    "error_clone_failed",
                    // A failure is no progress: the highest point reached before it.
                    69,
                    AGAIN,
                )
            },
        ],
    );
    ended(&r, "error_clone_failed", false);
    let rec = r.m.recovery(&r.snap, None);
    assert!(
        rec.suggestions
            .iter()
            .any(|s| s.contains("Check the URL and your git access")),
        "{rec:?}"
    );
}

#[test]
fn a_failed_config_write_rolls_the_state_back() {
    let mut r = start();
    walk(
        &mut r,
        &[
            read_config(8),
            ask("Local files", "ask_local_placement", 17, ASK),
            ask("Files are in place", "name_source", 58, ASK),
            ask("notes", "write_source_entry", 75, WRITE_CONFIG),
            Step {
                ok: false,
                ..call(
                    "Edit",
                    json!({"file_path": CONFIG}),
                    "error_config_write",
                    75,
                    AGAIN,
                )
            },
        ],
    );
    ended(&r, "error_config_write", false);
    assert_eq!(
        r.var("phase"),
        json!("start"),
        "rolled back to the checkpoint before the write"
    );
    assert_eq!(r.var("added_types"), json!(null));
}

#[test]
fn missing_files_and_cancelling_end_in_errors() {
    let mut r = Run::of(machine(), &[("config_exists", json!(true))]);
    walk(
        &mut r,
        &[
            read_config(8),
            ask("Local files", "ask_local_placement", 17, ASK),
        ],
    );
    r.call("AskUserQuestion", answer("Files are in place"));
    ended(&r, "error_no_local_files", false);
    let mut r = start();
    walk(
        &mut r,
        &[read_config(8), ask("Web pages", "collect_web_url", 17, ASK)],
    );
    r.call("AskUserQuestion", answer("Cancel"));
    ended(&r, "cancelled", false);
}

#[test]
fn without_a_corpus_config_the_workflow_stops_at_once() {
    let r = Run::of(machine(), &[]);
    ended(&r, "error_no_config", false);
    let st = r.m.chart.state(r.m.chart.find("error_no_config").unwrap());
    assert!(
        matches!(&st.kind, StateKind::Final { recovery: Some(rec), .. } if rec == "hiivmind-corpus-init")
    );
    let rec = r.m.recovery(&r.snap, None);
    assert!(
        rec.suggestions
            .iter()
            .any(|s| s.contains("hiivmind-corpus-init")),
        "{rec:?}"
    );
}

#[test]
fn a_call_at_an_error_ending_goes_through_with_the_endings_recovery() {
    let mut r = Run::of(machine(), &[]);
    ended(&r, "error_no_config", false);
    // The workflow is over: no lock-out, whatever the call and however often it is made; the
    // model is told what the ending says to do.
    for _ in 0..5 {
        let v = r.gate("Write", json!({"file_path": CONFIG}));
        assert_eq!(
            (v.kind, v.decision),
            (VerdictKind::OffPath, Decision::Allow)
        );
        assert_eq!(
            v.warning.as_deref(),
            Some(
                "seed: \"hiivmind_add_source\" ended in error at \"error_no_config\" (No config.yaml found); it gates no call any more. Recovery: hiivmind-corpus-init"
            )
        );
    }
    let line = r.m.guidance_line(&r.snap);
    assert_eq!(
        line,
        "[SEED SEQUENCE] \"hiivmind_add_source\" · at: error_no_config · ended in error at \"error_no_config\" · recovery: hiivmind-corpus-init · next: Skill(skill=\"hiivmind-corpus-init\") · highest 0%"
    );
    let rec = r.m.recovery(&r.snap, None);
    assert_eq!(
        rec.suggestions,
        [
            "Next: call Skill(skill=\"hiivmind-corpus-init\") (or Skill(skill=\"hiivmind-corpus:hiivmind-corpus-add-source\")).",
            "Ended in \"error_no_config\": hiivmind-corpus-init"
        ],
        "the ending's recovery said once, not again as \"If stuck\""
    );
}

#[test]
fn off_path_calls_are_denied_with_the_way_back() {
    let mut r = start();
    walk(&mut r, &[read_config(8)]);
    // Cloning before the source type is chosen: denied, with the calls that lead there.
    let clone = json!({"command": "git clone https://github.com/acme/docs .source/docs"});
    let v = r.gate("Bash", clone.clone());
    assert_eq!((v.kind, v.decision), (VerdictKind::OffPath, Decision::Deny));
    assert_eq!(v.next.as_deref(), Some("AskUserQuestion"));
    assert!(
        v.reason
            .contains("Bash comes later in \"hiivmind_add_source\" (after 4 more calls; at: \"ask_source_input\")"),
        "{}",
        v.reason
    );
    assert!(
        v.reason.contains(
            "First call AskUserQuestion 3 times, then Bash(command=\"mkdir -p .source\"); after that, Bash(command=\"git clone --depth 1 ${source_url} .source/${source_id}\") is allowed."
        ),
        "{}",
        v.reason
    );
    let rec = r.m.recovery(
        &r.snap,
        Some(&seed::engine::Event::tool("Bash", clone.clone())),
    );
    let path: Vec<String> = rec
        .path_to_denied
        .unwrap()
        .iter()
        .map(|s| s.tool.clone())
        .collect();
    assert_eq!(
        path,
        [
            "AskUserQuestion",
            "AskUserQuestion",
            "AskUserQuestion",
            "Bash(command=\"mkdir -p .source\")",
            "Bash(command=\"git clone --depth 1 ${source_url} .source/${source_id}\")"
        ],
        "the clone step, which this call fits"
    );
    // The denied call did not move anything; retrying it (reworded or not) is denied three
    // times in all, then escalates to asking the user.
    assert_eq!(r.here(), "ask_source_input");
    let third = r.gate(
        "Bash",
        json!({"command": "git clone --depth 1 https://example.com/x.git .source/x"}),
    );
    assert!(!third.escalated && third.repeat == 2, "{third:?}");
    assert!(!r.gate("Bash", clone.clone()).escalated);
    let fourth = r.gate("Bash", clone.clone());
    assert!(
        fourth.escalated && fourth.reason.contains("ask the user"),
        "{fourth:?}"
    );
    // Looking around stays allowed; the expected call still advances.
    assert_eq!(
        r.gate("Grep", json!({"pattern": "sources"})).kind,
        VerdictKind::Neutral
    );
    assert_eq!(
        r.call("AskUserQuestion", answer("Git repository")).kind,
        VerdictKind::Advance
    );
    // Inside the clone node, calls out of order are denied with the exact next call.
    r.call("AskUserQuestion", answer("https://github.com/acme/docs"));
    r.call("AskUserQuestion", answer("docs"));
    let v = r.gate("Bash", json!({"command": "git rev-parse HEAD"}));
    assert_eq!(v.decision, Decision::Deny);
    assert_eq!(
        v.next.as_deref(),
        Some("Bash(command=\"mkdir -p .source\")")
    );
}

#[test]
fn in_advise_mode_off_path_calls_go_through_with_a_warning() {
    let mut m = machine();
    m.chart.settings.enforcement = Enforcement::Advise;
    let mut r = Run::of(m, &project());
    walk(&mut r, &[read_config(8)]);
    let v = r.gate("Write", json!({"file_path": CONFIG}));
    assert_eq!(
        (v.kind, v.decision),
        (VerdictKind::OffPath, Decision::Allow)
    );
    let warning = v.warning.expect("advised");
    assert!(
        warning.contains("Write comes later in")
            && warning.contains("First call AskUserQuestion 3 times;"),
        "{warning}"
    );
}

#[test]
fn a_denied_call_whose_input_fits_no_step_is_told_the_input_the_step_needs() {
    let mut r = start();
    walk(&mut r, &[read_config(8)]);
    let rm = json!({"command": "rm -rf /"});
    let v = r.gate("Bash", rm.clone());
    assert_eq!(v.decision, Decision::Deny);
    // Not "then Bash is allowed": this Bash call never is; the step needs its own command.
    assert!(
        v.reason.contains(
            "First call AskUserQuestion 3 times; after that, Bash is allowed only as Bash(command=\"mkdir -p .source\"), not with this input."
        ),
        "{}",
        v.reason
    );
    assert_eq!(
        v.reason.matches("first").count() + v.reason.matches("First").count(),
        1
    );
    let rec = r.m.recovery(
        &r.snap,
        Some(&seed::engine::Event::tool("Bash", rm.clone())),
    );
    assert!(rec.denied_input_differs);
    assert!(
        rec.suggestions.iter().any(|s| s
            == "Bash with this input fits no step; Bash(command=\"mkdir -p .source\") becomes legal after: AskUserQuestion 3 times."),
        "{:?}",
        rec.suggestions
    );
    // At the step itself, the same call is told the input it lacks.
    r.call("AskUserQuestion", answer("Git repository"));
    r.call("AskUserQuestion", answer("https://github.com/acme/docs"));
    r.call("AskUserQuestion", answer("docs"));
    let v = r.gate("Bash", rm);
    assert!(
        v.reason.ends_with(
            "Here, Bash is allowed only as Bash(command=\"mkdir -p .source\"), not with this input."
        ),
        "{}",
        v.reason
    );
}

#[test]
fn a_fetch_of_another_site_is_denied_naming_the_site_the_user_gave() {
    let mut r = start();
    walk(
        &mut r,
        &[
            read_config(8),
            ask("llms.txt site", "collect_site_url", 17, ASK),
            ask(
                "https://docs.example.com",
                "try_llms_txt_detection",
                25,
                Some("WebFetch(url=\"https://docs.example.com/llms.txt\")"),
            ),
        ],
    );
    let v = r.gate(
        "WebFetch",
        json!({"url": "https://evil.example.org/llms.txt"}),
    );
    assert_eq!((v.kind, v.decision), (VerdictKind::OffPath, Decision::Deny));
    assert!(
        v.reason.contains(
            "WebFetch is allowed only as WebFetch(url=\"https://docs.example.com/llms.txt\")"
        ),
        "{}",
        v.reason
    );
    // Even as the PostToolUse of a call that went through anyway, it moves nothing.
    r.call(
        "WebFetch",
        json!({"url": "https://evil.example.org/llms.txt"}),
    );
    assert_eq!(r.here(), "try_llms_txt_detection");
    r.call_with(
        "WebFetch",
        json!({"url": "https://docs.example.com/llms.txt"}),
        fetched("https://docs.example.com/llms.txt", 200, "# Docs"),
    );
    assert_eq!(r.here(), "present_manifest_option");
}

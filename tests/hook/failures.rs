//! seed's own failures in hook mode, whatever their cause (arguments, payload, configuration):
//! one `seed:` line on stderr, a failure record, and the configured answer — never exit 2,
//! which Claude Code would take for a block.

use crate::support::hook as hook_common;

use hook_common::{Run, Sandbox, payload};
use serde_json::{Value, json};

fn pre(session: &str) -> String {
    payload(
        "PreToolUse",
        session,
        json!({ "tool_name": "Bash", "tool_input": { "command": "ls" } }),
    )
}

fn assert_open(r: &Run, what: &str) {
    assert_eq!((r.code, r.stdout.as_str()), (0, ""), "{what}");
    assert!(
        r.stderr.starts_with("seed: ") && r.stderr.trim_end().lines().count() == 1,
        "{what}: {:?}",
        r.stderr
    );
}

fn assert_denied(r: &Run, what: &str) -> String {
    assert_eq!(r.code, 0, "{what}");
    let v = r.json();
    assert_eq!(
        v["hookSpecificOutput"]["permissionDecision"], "deny",
        "{what}: {}",
        r.stdout
    );
    assert_eq!(v["hookSpecificOutput"]["hookEventName"], "PreToolUse");
    v["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .unwrap()
        .to_string()
}

fn errors(s: &Sandbox) -> Vec<Value> {
    std::fs::read_to_string(s.home().join("errors.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

const BAD_ARGS: &[&[&str]] = &[
    &["--bogus", "PreToolUse"],
    &["--sequence"],
    &["PreToolUse", "Extra"],
    &["--enforcement", "advise", "--enforcement=observe"],
];

#[test]
fn bad_arguments_fail_open_and_never_exit_2() {
    let s = Sandbox::new();
    for args in BAD_ARGS {
        let r = s.hook(args, pre("s-args"));
        assert_open(&r, &format!("{args:?}"));
        assert!(r.stderr.contains("hook arguments"), "{}", r.stderr);
    }
    // Recorded in the session's log: the payload named the session.
    let lines = s.log_lines("s-args");
    assert_eq!(lines.len(), BAD_ARGS.len());
    assert!(
        lines.iter().all(|l| l["hook"] == "PreToolUse"
            && l["error"].as_str().unwrap().contains("hook arguments"))
    );
    // No payload at all: the errors log.
    let r = s.hook(&["--bogus"], "");
    assert_open(&r, "no payload");
    assert_eq!(errors(&s).len(), 1);
}

#[test]
fn bad_arguments_fail_closed_deny_a_tool_call() {
    let s = Sandbox::new();
    for args in BAD_ARGS {
        let r = s.hook_env(args, pre("s-args"), &[("SEED_FAIL", "closed")]);
        let reason = assert_denied(&r, &format!("{args:?}"));
        assert!(reason.starts_with("seed: hook arguments: "), "{reason}");
    }
    // Fail-closed from the flag itself, even next to a bad argument.
    let r = s.hook(&["--fail", "closed", "--bogus"], pre("s-args"));
    assert_denied(&r, "--fail closed --bogus");
    // From the project's configuration.
    s.write_config("fail = \"closed\"\n");
    let r = s.hook(&["--bogus"], pre("s-args"));
    assert_denied(&r, ".seed.toml fail = closed");
    // Other events get no decision, just the record.
    let r = s.hook_env(
        &["--bogus"],
        payload("Stop", "s-args", json!({})),
        &[("SEED_FAIL", "closed")],
    );
    assert_open(&r, "Stop");
}

#[test]
fn help_still_prints_help() {
    let s = Sandbox::new();
    let o = s.cmd().args(["hook", "--help"]).output().unwrap();
    assert_eq!(o.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&o.stdout).contains("Usage: seed hook"));
}

/// `--help` beside a bad argument is not help (clap would exit 2, which blocks the agent): it
/// is the bad-argument path, one line on stderr, nothing on stdout, exit 0.
#[test]
fn help_next_to_a_bad_argument_is_a_bad_argument() {
    let s = Sandbox::new();
    for (name, args) in [
        (
            "hook_sequence_without_value_help",
            &["--sequence", "--help"][..],
        ),
        ("hook_bogus_help", &["--bogus", "--help"][..]),
    ] {
        let r = s.hook(args, pre("s-help"));
        assert_open(&r, name);
        assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
        insta::assert_snapshot!(
            name,
            format!(
                "exit: {}\nstdout: {:?}\nstderr: {}",
                r.code, r.stdout, r.stderr
            )
        );
    }
    assert_eq!(s.log_lines("s-help").len(), 2, "both recorded");
}

/// The event is only in the payload, and the payload lacks `session_id`: fail-closed still
/// denies the tool call, and the failure record names the event.
#[test]
fn fail_closed_uses_the_event_named_in_the_payload() {
    let s = Sandbox::new();
    let input = r#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{}}"#;
    let r = s.hook_env(&[], input, &[("SEED_FAIL", "closed")]);
    let reason = assert_denied(&r, "no session_id");
    assert!(reason.contains("session_id"), "{reason}");
    let rec = errors(&s).pop().unwrap();
    assert_eq!(rec["hook"], "PreToolUse");
    assert_eq!(rec["extra"]["fail"], "closed");
    // The same payload with lone surrogates and invalid UTF-8 around.
    let mut odd = br#"{"hook_event_name":"PreToolUse","prompt":"\ud800 caf"#.to_vec();
    odd.extend_from_slice(b"\xe9\"}");
    let r = s.hook_env(&[], odd, &[("SEED_FAIL", "closed")]);
    assert_denied(&r, "odd bytes");
    // Fail-open: nothing printed, still recorded with the event.
    let r = s.hook(&[], input);
    assert_open(&r, "fail-open");
    assert_eq!(errors(&s).pop().unwrap()["hook"], "PreToolUse");
    // A hostile event name is not taken for one.
    let r = s.hook_env(
        &[],
        r#"{"hook_event_name":"PreToolUse\n{\"x\":1}"}"#,
        &[("SEED_FAIL", "closed")],
    );
    assert_open(&r, "hostile name");
}

/// A `.seed.toml` that does not parse is an error naming file:line:col, but its readable
/// `fail = "closed"` is honoured.
#[test]
fn a_broken_config_that_asks_for_fail_closed_fails_closed() {
    let s = Sandbox::new();
    s.write_config("fail = \"closed\"\nsequence = [\"starlog_initialization\"\n");
    let r = s.hook(&[], pre("s-cfg"));
    let reason = assert_denied(&r, "broken config");
    let file = s.project().join(".seed.toml");
    assert!(
        reason.starts_with(&format!("seed: {}:2:", file.display())),
        "{reason}"
    );
    assert!(
        r.stderr
            .starts_with(&format!("seed: {}:2:", file.display()))
    );
    // SEED_FAIL=open beats the file.
    let r = s.hook_env(&[], pre("s-cfg"), &[("SEED_FAIL", "open")]);
    assert_open(&r, "SEED_FAIL=open");
}

/// Unknown keys (a newer seed's settings) do not break the hook: it answers as configured
/// and says once, on stderr, what it ignored.
#[test]
fn unknown_config_keys_warn_and_the_hook_still_answers() {
    let s = Sandbox::new();
    s.write_config("sequence = \"starlog_initialization\"\noff_path = \"deny\"\nnew_setting = 1\n");
    let r = s.hook(&[], pre("s-warn"));
    assert_eq!(r.code, 0);
    assert_eq!(r.json()["hookSpecificOutput"]["permissionDecision"], "deny");
    let file = s.project().join(".seed.toml");
    assert_eq!(
        r.stderr,
        format!(
            "seed: warning: {}:3:1: unknown key `new_setting` ignored (a setting of a newer seed?)\n",
            file.display()
        )
    );
}

/// A sequence list given explicitly that names nothing is a mistake, not a way to turn
/// enforcement off: one line, a failure record, the configured answer.
#[test]
fn an_empty_sequence_list_is_an_argument_error() {
    let s = Sandbox::new();
    type Env<'a> = &'a [(&'a str, &'a str)];
    let cases: [(&[&str], Env); 4] = [
        (&["--sequence="], &[]),
        (&["--sequence", " , "], &[]),
        (&["--sequence", ""], &[]),
        (&[], &[("SEED_SEQUENCE", " , ")]),
    ];
    for (args, env) in cases {
        let what = format!("{args:?} {env:?}");
        let r = s.hook_env(args, pre("s-empty"), env);
        assert_open(&r, &what);
        assert!(
            r.stderr.contains("no sequence named"),
            "{what}: {}",
            r.stderr
        );
        let mut env = env.to_vec();
        env.push(("SEED_FAIL", "closed"));
        let reason = assert_denied(&s.hook_env(args, pre("s-empty"), &env), &what);
        assert!(reason.contains("no sequence named"), "{reason}");
    }
    let lines = s.log_lines("s-empty");
    assert_eq!(lines.len(), 8, "each one recorded");
    assert!(
        lines
            .iter()
            .all(|l| l["error"].as_str().unwrap().contains("no sequence named"))
    );
    // The project's `fail = "closed"` holds too.
    s.write_config("fail = \"closed\"\n");
    assert_denied(&s.hook(&["--sequence="], pre("s-empty")), "project fail");
    // An empty SEED_SEQUENCE is unset, as usual, and a project list wins over the variable.
    s.write_config("sequence = \"starlog_initialization\"\n");
    for v in ["", " , "] {
        let r = s.hook_env(&[], pre("s-empty"), &[("SEED_SEQUENCE", v)]);
        assert_eq!((r.code, r.stderr.as_str()), (0, ""), "{v:?}");
    }
}

/// The session log's lock held by another process: the hook waits `lock_wait_ms`, not
/// forever (Claude Code's 30 s timeout would let the call through, fail-closed or not), then
/// fails per `fail` with one line naming the lock.
#[test]
fn a_log_locked_elsewhere_fails_after_a_bounded_wait() {
    let s = Sandbox::new();
    s.write_config(
        "sequence = \"starlog_initialization\"\nlock_wait_ms = 300\nfail = \"closed\"\n",
    );
    assert_eq!(s.hook(&[], pre("s-lock")).code, 0);
    let log = s.session_dir("s-lock").join("log.jsonl");
    let holder = std::fs::OpenOptions::new().append(true).open(&log).unwrap();
    holder.lock().unwrap();
    let t0 = std::time::Instant::now();
    let r = s.hook(&[], pre("s-lock"));
    let waited = t0.elapsed();
    let reason = assert_denied(&r, "locked");
    assert!(
        reason.contains(&format!("cannot lock {}", log.display())) && reason.contains("0.3 s"),
        "{reason}"
    );
    assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
    assert!(
        waited >= std::time::Duration::from_millis(300),
        "{waited:?}"
    );
    assert!(waited < std::time::Duration::from_secs(8), "{waited:?}");
    // The failure could not go to the locked log: it is in the errors log.
    let rec = errors(&s).pop().expect("failure recorded");
    assert_eq!(
        (rec["session"].as_str(), rec["extra"]["fail"].as_str()),
        (Some("s-lock"), Some("closed"))
    );
    // Fail-open: the same wait, no decision.
    s.write_config("sequence = \"starlog_initialization\"\nlock_wait_ms = 300\n");
    assert_open(&s.hook(&[], pre("s-lock")), "locked, fail-open");
    // Released: the hook goes on as usual.
    drop(holder);
    let r = s.hook(&[], pre("s-lock"));
    assert_eq!((r.code, r.stderr.as_str()), (0, ""));
    assert_eq!(s.log_lines("s-lock").len(), 2);
}

/// `seed` (not a hook) in the sandbox: exit code and stdout.
fn seed_out(s: &Sandbox, args: &[&str]) -> (i32, String) {
    let o = s.cmd().args(args).output().unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
    )
}

/// A hook of `session` whose log stays locked past `hook_budget_ms`: the lapse can only go to
/// `errors.jsonl`, with the session's id.
fn lapse_while_locked(s: &Sandbox, session: &str) {
    let log = std::fs::File::open(s.session_dir(session).join("log.jsonl")).unwrap();
    log.lock().unwrap();
    let r = s.hook_env(
        &["PreToolUse"],
        pre(session),
        &[("SEED_HOOK_BUDGET_MS", "300")],
    );
    assert_open(&r, "over budget, fail open");
    assert!(r.stderr.contains("ran out of time"), "{}", r.stderr);
    drop(log);
}

/// A fail-closed refusal is not a lapse (it did its job): `status`, `replay --summary` and
/// `doctor` count lapses (a call let through unjudged, a hook over its budget) and fail-closed
/// refusals apart, and count what only `errors.jsonl` holds. `doctor` lists each with when,
/// where and why, its control characters shown, never raw.
#[test]
fn every_face_counts_lapses_apart_from_fail_closed_refusals() {
    let s = Sandbox::new();
    let id = "s-count";
    let r = s.hook(&["--sequence", "safe_git", "PreToolUse"], pre(id));
    assert_eq!(r.code, 0, "{}", r.stderr);
    // Refused because seed could not judge the call: a fail-closed refusal.
    let closed = [("SEED_FAIL", "closed")];
    assert_denied(&s.hook_env(&["--bogus"], pre(id), &closed), "closed");
    // Let through unjudged; and under fail closed, a Stop has nothing to refuse: lapses.
    assert_open(&s.hook(&["--bogus"], pre(id)), "open");
    let stop = payload("Stop", id, json!({}));
    assert_open(&s.hook_env(&["--bogus"], stop, &closed), "Stop");
    lapse_while_locked(&s, id);
    // No session at all, and a hostile reason written by hand.
    assert_open(&s.hook(&["--bogus"], ""), "no payload");
    let hostile = json!({"v": 1, "ts": "2026-11-28T04:00:00Z", "session": "", "hook": "PreToolUse",
        "error": "seed: \u{1b}]0;pwned\u{7} \u{202e}gnp.exe", "extra": {"fail": "open"}});
    let mut errors_log = std::fs::read_to_string(s.home().join("errors.jsonl")).unwrap();
    errors_log.push_str(&format!("{hostile}\n"));
    std::fs::write(s.home().join("errors.jsonl"), errors_log).unwrap();

    let (code, text) = seed_out(&s, &["status", "--session", id]);
    assert_eq!(code, 0, "{text}");
    let last = text.trim_end().lines().last().unwrap_or_default();
    assert_eq!(
        last,
        "seed's own failures: 3 lapses, 1 refused (fail = \"closed\") — `seed doctor` lists when and why"
    );
    let (_, out) = seed_out(&s, &["status", "--session", id, "--json"]);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["hook_failures"], json!({"lapses": 3, "failed_closed": 1}));

    // The log alone: the locked-out lapse is only in errors.jsonl.
    let log = s.session_dir(id).join("log.jsonl");
    let log = log.to_str().unwrap();
    let (_, out) = seed_out(&s, &["replay", log, "--summary", "--json"]);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["hook_failures"], json!({"lapses": 2, "failed_closed": 1}));
    let (_, text) = seed_out(&s, &["replay", log, "--summary"]);
    assert!(
        text.contains("seed:       2 lapses, 1 refused (fail = \"closed\") (its own failures)"),
        "{text}"
    );

    let (_, out) = seed_out(&s, &["doctor", "--json"]);
    let v: Value = serde_json::from_str(&out).unwrap();
    let f = &v["failures"];
    assert_eq!(
        (f["lapses"].as_u64(), f["failed_closed"].as_u64()),
        (Some(5), Some(1))
    );
    let newest = &f["recent"][0];
    assert_eq!(newest["recorded_in"], "errors.jsonl");
    let over = f["recent"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["kind"] == "over_budget");
    let over = over.expect("the lapse of the budget is listed");
    assert_eq!(
        (over["session"].as_str(), over["recorded_in"].as_str()),
        (Some(id), Some("errors.jsonl"))
    );
    let (_, text) = seed_out(&s, &["doctor"]);
    assert!(
        text.contains("! seed's own failures recorded: 5 lapses, 1 refused (fail = \"closed\")"),
        "{text}"
    );
    assert!(text.contains("PreToolUse (session s-count, errors.jsonl)  lapse (over its time budget): seed: ran out of time"), "{text}");
    assert!(
        text.contains("refused (fail = \"closed\"): seed: hook arguments"),
        "{text}"
    );
    assert!(!text.contains(['\u{1b}', '\u{7}', '\u{202e}']), "{text:?}");
}

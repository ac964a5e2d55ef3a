//! A deep-state file that changes between hook events moves what `status`, `recovery` and the
//! MCP server show: the readers are sampled and the eventless transitions stepped, as the next
//! hook will, and the state says it was moved by files. The log stays the truth: the next hook
//! records the same move.

use std::path::PathBuf;

use serde_json::{Value, json};

use crate::support::hook::{Sandbox, payload};

const SID: &str = "s-files";

/// A hook event of the session, run in the project (the session's directory).
fn event(s: &Sandbox, env: &[(&str, &str)], name: &str, mut extra: Value) -> Value {
    extra["cwd"] = json!(s.project().display().to_string());
    let r = s.hook_env(&[], payload(name, SID, extra), env);
    assert_eq!(r.code, 0, "{}", r.stderr);
    if r.stdout.trim().is_empty() {
        Value::Null
    } else {
        r.json()
    }
}

fn post(s: &Sandbox, env: &[(&str, &str)], tool: &str, input: Value) {
    event(
        s,
        env,
        "PostToolUse",
        json!({ "tool_name": tool, "tool_input": input, "tool_response": "ok" }),
    );
}

fn seed(s: &Sandbox, env: &[(&str, &str)], args: &[&str]) -> String {
    let mut c = s.cmd();
    c.args(args);
    for (k, v) in env {
        c.env(k, v);
    }
    let o = c.output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn status(s: &Sandbox, env: &[(&str, &str)]) -> Value {
    serde_json::from_str(&seed(s, env, &["status", "--session", SID, "--json"])).unwrap()
}

/// What the log alone says: its records folded, no file read.
fn logged(s: &Sandbox, sequence: &str) -> Value {
    let log = s.session_dir(SID).join("log.jsonl").display().to_string();
    let args = ["status", "--events", &log, "--sequence", sequence, "--json"];
    serde_json::from_str(&seed(s, &[], &args)).unwrap()
}

fn current(v: &Value) -> Vec<String> {
    v["current"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|s| s.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

fn dna(blueprint: &[&str], active: &[&str]) -> String {
    let blueprint: serde_json::Map<String, Value> = blueprint
        .iter()
        .map(|m| {
            (
                m.to_string(),
                json!({ "description": "an organ", "version": 1 }),
            )
        })
        .collect();
    json!({
        "goals": [{ "text": "I must be able to perceive the file system.", "achieved": false }],
        "blueprint": blueprint,
        "failures": [],
        "active_modules": active,
    })
    .to_string()
}

fn write(path: PathBuf, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// Seed 002: "Designed --> Pending: Added to blueprint", "Generating --> Materialized: Code
/// written to disk", "Validating --> Active: start() validated", "Active --> Running: Thread
/// spawned" — each read from the organism's files between the agent's calls.
#[test]
fn seaam_s_lifecycle_moves_with_dna_json_before_the_next_hook_records_it() {
    let s = Sandbox::new();
    s.write_config("sequence = \"seaam_organ_lifecycle\"\n");
    let dna_at = s.project().join("dna.json");
    write(dna_at.clone(), &dna(&[], &[]));
    event(&s, &[], "SessionStart", json!({ "source": "startup" }));
    let st = status(&s, &[]);
    assert_eq!(current(&st), ["Designed"]);
    assert!(st.get("moved_by_files").is_none(), "{st}");

    // The Architect adds an organ to the blueprint: no hook runs, the state moves.
    let observer = "soma.perception.observer";
    write(dna_at.clone(), &dna(&[observer], &[]));
    let records = s.log_lines(SID).len();
    let st = status(&s, &[]);
    assert_eq!(current(&st), ["Pending"]);
    assert_eq!(st["moved_by_files"]["files"][0]["file"], "dna.json");
    let readers = &st["moved_by_files"]["files"][0]["readers"];
    assert!(
        readers.as_array().unwrap().contains(&json!("designs")),
        "{readers}"
    );
    let text = seed(&s, &[], &["status", "--session", SID]);
    assert!(text.contains("moved by files: dna.json changed"), "{text}");
    let text = seed(&s, &[], &["recovery", "--session", SID]);
    assert!(text.contains("moved by files: dna.json changed"), "{text}");
    assert_eq!(s.log_lines(SID).len(), records, "status writes nothing");
    assert_eq!(current(&logged(&s, "seaam_organ_lifecycle")), ["Designed"]);

    // The next hook records the same move; the state is no longer marked.
    event(
        &s,
        &[],
        "UserPromptSubmit",
        json!({ "prompt": "grow an observer" }),
    );
    assert_eq!(current(&logged(&s, "seaam_organ_lifecycle")), ["Pending"]);
    let st = status(&s, &[]);
    assert_eq!(current(&st), ["Pending"]);
    assert!(st.get("moved_by_files").is_none(), "{st}");

    // "Pending --> Generating: Gateway called": the agent starts the Genesis loop.
    post(
        &s,
        &[],
        "Bash",
        json!({ "command": "python -m seaam.genesis" }),
    );
    assert_eq!(current(&status(&s, &[])), ["Generating"]);
    // The Materializer writes the module; the Assimilator loads it.
    write(
        s.project().join("soma/perception/observer.py"),
        "def start():\n    pass\n",
    );
    assert_eq!(current(&status(&s, &[])), ["Importing"]);
    // start() validated and the organ is active: its thread runs.
    write(dna_at, &dna(&[observer], &[observer]));
    let st = status(&s, &[]);
    assert_eq!(current(&st), ["Running"]);
    assert_eq!(
        current(&logged(&s, "seaam_organ_lifecycle")),
        ["Generating"]
    );
    post(&s, &[], "Read", json!({ "file_path": "dna.json" }));
    assert_eq!(current(&logged(&s, "seaam_organ_lifecycle")), ["Running"]);
    crate::support::hook::assert_snapshot_is_fold(&s.home(), SID);
}

/// Seed 000: a waypoint journey that becomes active puts its constraint in force: `status`
/// no longer lists Edit as allowed, and the hook refuses it, before any hook event saw the file.
#[test]
fn a_journey_that_became_active_puts_its_constraint_in_force_at_once() {
    let s = Sandbox::new();
    s.write_config("sequence = \"compound_intelligence\"\n");
    let heaven = s.dir.path().join("heaven");
    std::fs::create_dir_all(&heaven).unwrap();
    let heaven_s = heaven.display().to_string();
    let env = [("HEAVEN_DATA_DIR", heaven_s.as_str())];
    event(&s, &env, "SessionStart", json!({ "source": "startup" }));
    for tool in [
        "mcp__seed__who_am_i",
        "mcp__seed__what_do_i_do",
        "mcp__starlog__check",
        "mcp__starlog__orient",
        "mcp__starship__fly",
        "mcp__waypoint__start_waypoint_journey",
    ] {
        post(&s, &env, tool, json!({}));
    }
    let allowed = |st: &Value| st["allowed"].to_string();
    let st = status(&s, &env);
    assert!(allowed(&st).contains("\"Edit\""), "{st}");
    let in_force = "context.waypoint_active_learning.on".to_string();
    assert!(!current(&st).contains(&in_force), "{st}");

    write(
        heaven.join("waypoints/journey.json"),
        r#"{"status":"active"}"#,
    );
    let st = status(&s, &env);
    assert!(current(&st).contains(&in_force), "{st}");
    assert!(!allowed(&st).contains("\"Edit\""), "{st}");
    assert_eq!(
        st["moved_by_files"]["files"][0]["file"], "journey.json",
        "{st}"
    );
    // What status said is what the hook answers.
    let edit = json!({ "tool_name": "Edit", "tool_input": { "file_path": "a.rs" } });
    let answer = event(&s, &env, "PreToolUse", edit);
    assert_eq!(
        answer["hookSpecificOutput"]["permissionDecision"], "deny",
        "{answer}"
    );
    let st = status(&s, &env);
    assert!(current(&st).contains(&in_force), "{st}");
    assert!(st.get("moved_by_files").is_none(), "{st}");
}

/// Seed 002 §3: "Every organ goes through a defined lifecycle managed by the Kernel" — one
/// lifecycle per organ of dna.json's blueprint in `status`, with the organism's progress from
/// its goals (§2: "goals … achieved").
#[test]
fn status_shows_each_organ_s_lifecycle_and_the_goals() {
    let s = Sandbox::new();
    s.write_config("sequence = \"seaam_organ_lifecycle\"\n");
    let p = s.project();
    write(
        p.join("soma/perception/observer.py"),
        "def start():\n    pass\n",
    );
    write(p.join("soma/memory/store.py"), "import sqlite4\n");
    let doc = json!({
        "goals": [
            { "text": "I must be able to perceive the file system.", "achieved": true },
            { "text": "I must have persistent memory.", "achieved": false }
        ],
        "blueprint": {
            "soma.perception.observer": { "description": "watches files", "version": 1 },
            "soma.memory.store": { "description": "remembers", "version": 1 },
            "soma.voice.speaker": { "description": "speaks", "version": 1 }
        },
        "failures": [{ "module_name": "soma.memory.store", "error_type": "import",
            "message": "No module named 'sqlite4'" }],
        "active_modules": ["soma.perception.observer"],
    });
    write(p.join("dna.json"), &doc.to_string());
    event(&s, &[], "SessionStart", json!({ "source": "startup" }));
    post(
        &s,
        &[],
        "Bash",
        json!({ "command": "python -m seaam.genesis" }),
    );

    let st = status(&s, &[]);
    let organs: Vec<(String, String)> = st["each"]["items"]
        .as_array()
        .expect("organs")
        .iter()
        .map(|o| {
            (
                o["name"].as_str().unwrap().into(),
                o["states"][0].as_str().unwrap().into(),
            )
        })
        .collect();
    let want = [
        ("soma.perception.observer", "Running"),
        ("soma.memory.store", "Failed"),
        // Designed and the loop started, no module written yet.
        ("soma.voice.speaker", "Generating"),
    ];
    assert_eq!(
        organs,
        want.map(|(a, b)| (a.to_string(), b.to_string())),
        "{st}"
    );
    assert_eq!(st["each"]["what"], "organ");
    assert_eq!(
        st["each"]["progress"],
        json!({ "done": 1, "of": 2, "what": "goals achieved" })
    );
    let text = seed(&s, &[], &["status", "--session", SID]);
    assert!(text.contains("organs: 3\n"), "{text}");
    assert!(
        text.contains("  soma.memory.store         Failed\n"),
        "{text}"
    );
    assert!(text.contains("progress: 1 of 2 goals achieved"), "{text}");

    // The organ is redesigned: its failure cleared, it is pending again and generating.
    let mut doc = doc;
    doc["failures"] = json!([]);
    write(p.join("dna.json"), &doc.to_string());
    std::fs::remove_file(p.join("soma/memory/store.py")).unwrap();
    let st = status(&s, &[]);
    assert_eq!(st["each"]["items"][1]["states"][0], "Generating", "{st}");
}

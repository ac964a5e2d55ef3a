//! A scripted session for every shipped sequence, made the way the hook makes one (every
//! PreToolUse gated by the real engine): what the dashboard tests of each sequence walk.

use serde_json::{Value, json};

use super::Script;

/// Every shipped sequence with its walk.
pub fn all() -> Vec<Script> {
    vec![
        odyssean_anchor(),
        hope(),
        hiivmind_add_source(),
        seaam_organ_lifecycle(),
        compound_intelligence(),
        giint_workflow(),
        starlog_initialization(),
        waypoint_journey(),
    ]
}

pub fn skill(name: &str) -> Value {
    json!({ "skill": name })
}

pub fn answer(label: &str) -> Value {
    json!({ "questions": [{ "question": "q?", "options": [] }], "answers": { "q?": label } })
}

pub fn anchor(stage: &str) -> Value {
    json!({"stage": stage, "role": "implementation-lead", "tier": "LITE", "topic": "cache"})
}

/// odyssean_anchor: four writes denied in the lobby (the breaker escalates the fourth), then
/// the binding starts: at IDENTIFYING, waiting for commit_identity.
pub fn odyssean_anchor() -> Script {
    let mut s = Script::of("odyssean_anchor", "s-anchor");
    s.lifecycle("SessionStart")
        .prompt("implement the cache")
        .call(
            "Read",
            json!({"file_path": "/repo/.hestai-sys/agents/impl.oct.md"}),
            30,
            Some(true),
        );
    for f in ["notes.md", "todo.md", "plan.md", "notes.md"] {
        s.call("Write", json!({ "file_path": f }), 0, Some(true));
    }
    s.call(
        "mcp__hestai__odyssean_anchor",
        anchor("init"),
        400,
        Some(true),
    );
    s
}

/// hope: a need, intent's questions, an early ExitPlanMode refused (no brief yet), shape, and
/// consult's panel on the approach: the brief and the shape are done, coverage is not.
pub fn hope() -> Script {
    let mut s = Script::of("hope", "s-hope");
    s.lifecycle("SessionStart")
        .prompt("add a caching layer to the API")
        .call("Skill", skill("hope:intent"), 200, Some(true))
        .call("AskUserQuestion", answer("Redis"), 4000, Some(true))
        .call(
            "ExitPlanMode",
            json!({"plan": "cache everything"}),
            0,
            Some(true),
        )
        .call("Skill", skill("hope:shape"), 300, Some(true))
        .call("Grep", json!({"pattern": "fn handler"}), 40, Some(true))
        .call("Skill", skill("hope:consult"), 900, Some(true));
    s
}

const CONFIG: &str = "/home/me/corpus/data/config.yaml";

/// hiivmind_add_source: an llms.txt site, its manifest fetched and accepted, the source named:
/// the manifest is to be written under the source's own folder next.
pub fn hiivmind_add_source() -> Script {
    let mut s = Script::of("hiivmind_add_source", "s-corpus");
    s.fact("config_exists", json!(true))
        .fact("directory_exists:data/uploads", json!(true))
        .lifecycle("SessionStart")
        .prompt("add the docs.example.dev llms.txt to the corpus")
        .call_returning(
            "Read",
            json!({"file_path": CONFIG}),
            json!({"type": "text", "file": {"filePath": CONFIG, "content": "corpus: acme\nsources: []\n"}}),
            20,
            Some(true),
        )
        .call("AskUserQuestion", answer("llms.txt site"), 3000, Some(true))
        .call("AskUserQuestion", answer("https://docs.example.dev"), 3000, Some(true))
        .call_returning(
            "WebFetch",
            json!({"url": "https://docs.example.dev/llms.txt", "prompt": "list the sections"}),
            json!({"bytes": 26, "code": 200, "codeText": "OK", "result": "# Docs\n- [Intro](intro.md)", "durationMs": 812, "url": "https://docs.example.dev/llms.txt"}),
            800,
            Some(true),
        )
        .call("AskUserQuestion", answer("Yes, use llms-txt"), 2000, Some(true))
        .call("AskUserQuestion", answer("All pages"), 2000, Some(true))
        .call("Bash", json!({"command": "curl -s https://docs.example.dev/llms.txt"}), 0, Some(true))
        .call("AskUserQuestion", answer("docs"), 2000, Some(true));
    s
}

/// The facts seaam's readers give for a dna.json with these counts.
pub fn dna(s: &mut Script, designs: u64, files: u64, active: u64, goals: (u64, u64)) {
    s.fact("designs", json!(designs))
        .fact("organ_files", json!(files))
        .fact("failures", json!(0))
        .fact("failure", Value::Null)
        .fact("failure_module", Value::Null)
        .fact("failure_message", Value::Null)
        .fact("active_modules", json!(active))
        .fact("pending_organs", json!(designs - active))
        .fact("goals_achieved", json!(goals.0))
        .fact("goals_total", json!(goals.1))
        .fact("goals_all_achieved", json!(goals.0 == goals.1))
        .fact("evolution_count", json!(3));
}

/// seaam_organ_lifecycle: an organ designed, the Genesis loop started, its module written,
/// assimilated and running, one goal of two achieved (every step read from dna.json).
pub fn seaam_organ_lifecycle() -> Script {
    let mut s = Script::of("seaam_organ_lifecycle", "s-seaam");
    dna(&mut s, 0, 0, 0, (0, 2));
    s.lifecycle("SessionStart").prompt("grow an observer organ");
    dna(&mut s, 1, 0, 0, (0, 2));
    s.call(
        "Read",
        json!({"file_path": "/org/dna.json"}),
        20,
        Some(true),
    )
    .call(
        "Bash",
        json!({"command": "python -m seaam.genesis"}),
        5000,
        Some(true),
    );
    dna(&mut s, 1, 1, 0, (0, 2));
    s.call(
        "Read",
        json!({"file_path": "/org/soma/perception/observer.py"}),
        20,
        Some(true),
    );
    dna(&mut s, 1, 1, 1, (1, 2));
    s.call(
        "Bash",
        json!({"command": "tail -n 20 seaam.log"}),
        30,
        Some(true),
    );
    s
}

/// compound_intelligence: identity and context, a denied spawn, the flight and a waypoint
/// journey under way.
pub fn compound_intelligence() -> Script {
    let mut s = Script::of("compound_intelligence", "s-ci");
    s.fact("waypoint_status", Value::Null)
        .fact("starlog_status", json!(2))
        .fact("flight_status", Value::Null)
        .lifecycle("SessionStart")
        .prompt("start a waypoint journey on the parser")
        .call("mcp__seed__who_am_i", json!({}), 300, Some(true))
        .call("mcp__seed__what_do_i_do", json!({}), 250, Some(true))
        .call(
            "mcp__starlog__check",
            json!({"path": "/repo"}),
            600,
            Some(true),
        )
        .call(
            "mcp__heaven-subagent__spawn",
            json!({"task": "review"}),
            0,
            Some(true),
        )
        .call("mcp__starlog__orient", json!({}), 1200, Some(true))
        .call(
            "mcp__starship__fly",
            json!({"course": "parser"}),
            800,
            Some(true),
        )
        .call(
            "mcp__waypoint__start_waypoint_journey",
            json!({"journey": "parser"}),
            450,
            Some(true),
        )
        .fact("waypoint_status", json!("active"))
        .call(
            "mcp__waypoint__navigate_to_next_waypoint",
            json!({}),
            300,
            Some(true),
        );
    s
}

/// giint_workflow: a project, a feature and a task; a respond out of order first.
pub fn giint_workflow() -> Script {
    let mut s = Script::of("giint_workflow", "s-giint");
    s.lifecycle("SessionStart")
        .prompt("plan the parser work")
        .call(
            "mcp__giint__create_project",
            json!({"name": "parser"}),
            200,
            Some(true),
        )
        .call("mcp__giint__respond", json!({}), 0, Some(true))
        .call(
            "mcp__giint__add_feature",
            json!({"name": "lexer"}),
            200,
            Some(true),
        )
        .call(
            "mcp__giint__add_task",
            json!({"name": "tokens"}),
            200,
            Some(true),
        );
    s
}

/// starlog_initialization: the project checked, registered, then oriented: a flight next.
pub fn starlog_initialization() -> Script {
    let mut s = Script::of("starlog_initialization", "s-starlog");
    s.lifecycle("SessionStart")
        .call(
            "mcp__starlog__check",
            json!({"path": "/repo"}),
            300,
            Some(true),
        )
        .call("mcp__starship__fly", json!({"course": "x"}), 0, Some(true))
        .call(
            "mcp__starlog__init_project",
            json!({"path": "/repo"}),
            300,
            Some(true),
        )
        .call("mcp__starlog__orient", json!({}), 300, Some(true));
    s
}

/// waypoint_journey: a journey started and two waypoints passed, a deep-state reader watching.
pub fn waypoint_journey() -> Script {
    let mut s = Script::of("waypoint_journey", "s-waypoint");
    s.fact("waypoint_status", Value::Null)
        .lifecycle("SessionStart")
        .call(
            "mcp__waypoint__start_waypoint_journey",
            json!({"journey": "parser"}),
            450,
            Some(true),
        )
        .fact("waypoint_status", json!("active"))
        .call(
            "mcp__waypoint__navigate_to_next_waypoint",
            json!({}),
            300,
            Some(true),
        )
        .call(
            "Edit",
            json!({"file_path": "/repo/src/lexer.rs"}),
            40,
            Some(true),
        )
        .call(
            "mcp__waypoint__navigate_to_next_waypoint",
            json!({}),
            300,
            Some(true),
        );
    s
}

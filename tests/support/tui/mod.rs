//! Session logs for dashboard tests and benches, made the way the hook makes them: every
//! PreToolUse is gated by the real engine and the verdict it gave is recorded.
#![allow(dead_code)]

pub mod walks;

use serde_json::{Value, json};

use seed::engine::{Event, Facts, Machine, Phase, Snapshot};
use seed::store::record::Record;

pub const SEQUENCE: &str = "compound_intelligence";

pub fn machine(name: &str) -> Machine {
    let loaded = seed::dialects::builtin(name)
        .expect("built-in sequence")
        .expect("loads");
    Machine::new(loaded.chart)
}

pub struct Script {
    pub machine: Machine,
    /// The sequence's name, as records name it.
    pub sequence: String,
    snap: Option<Snapshot>,
    /// Unix ms.
    pub t: i64,
    pub session: String,
    pub facts: Facts,
    pub agent: Option<String>,
    pub records: Vec<Record>,
    n: u64,
}

pub fn rfc3339(ms: i64) -> String {
    jiff::Timestamp::from_millisecond(ms)
        .expect("time")
        .strftime("%Y-%m-%dT%H:%M:%S%.3fZ")
        .to_string()
}

impl Script {
    pub fn new(session: &str) -> Script {
        Script::of(SEQUENCE, session)
    }

    /// A session stepped through the built-in sequence `name`.
    pub fn of(name: &str, session: &str) -> Script {
        Script {
            machine: machine(name),
            sequence: name.into(),
            snap: None,
            // 2026-01-15T14:02:00Z
            t: 1_768_485_720_000,
            session: session.into(),
            facts: Facts::new(),
            agent: None,
            records: Vec::new(),
            n: 0,
        }
    }

    pub fn wait(&mut self, ms: i64) -> &mut Self {
        self.t += ms;
        self
    }

    pub fn fact(&mut self, k: &str, v: Value) -> &mut Self {
        self.facts.insert(k.into(), v);
        self
    }

    fn record(&mut self, hook: &str, phase: Option<Phase>, event: Option<Event>) -> Record {
        let mut r = Record::new(rfc3339(self.t), self.session.clone(), hook);
        r.agent = self.agent.clone();
        r.phase = phase;
        r.facts = self.facts.clone();
        r.sequences = vec![self.sequence.clone()];
        r.ms = Some(1.1 + (self.n % 5) as f64 * 0.2);
        if let (Some(p), Some(ev)) = (phase, &event) {
            let snap = self
                .snap
                .get_or_insert_with(|| self.machine.start(&self.facts));
            let report = self.machine.step(snap, p, ev, &self.facts);
            r.verdict = report.verdict;
        }
        r.event = event;
        r
    }

    pub fn lifecycle(&mut self, hook: &str) -> &mut Self {
        let r = self.record(hook, Some(Phase::Advance), Some(Event::lifecycle(hook)));
        self.records.push(r);
        self.wait(400)
    }

    pub fn prompt(&mut self, text: &str) -> &mut Self {
        let mut r = self.record(
            "UserPromptSubmit",
            Some(Phase::Advance),
            Some(Event::prompt(text)),
        );
        r.extra = json!({ "prompt": text });
        self.records.push(r);
        self.wait(1500)
    }

    /// PreToolUse, then (when allowed and `post` is set) PostToolUse after `took` ms.
    pub fn call(&mut self, tool: &str, input: Value, took: i64, post: Option<bool>) -> &mut Self {
        self.call_returning(tool, input, Value::Null, took, post)
    }

    /// [`Script::call`] whose PostToolUse reports `response` (the tool's result).
    pub fn call_returning(
        &mut self,
        tool: &str,
        input: Value,
        response: Value,
        took: i64,
        post: Option<bool>,
    ) -> &mut Self {
        self.n += 1;
        let id = format!("toolu_{:04}", self.n);
        let mut pre = self.record(
            "PreToolUse",
            Some(Phase::Gate),
            Some(Event::tool(tool, input.clone())),
        );
        pre.tool_use_id = Some(id.clone());
        let blocked = pre.verdict.as_ref().is_some_and(|v| v.blocks());
        self.records.push(pre);
        if blocked {
            return self.wait(700);
        }
        let Some(ok) = post else { return self };
        self.wait(took);
        let (hook, ev) = if ok {
            (
                "PostToolUse",
                Event::tool(tool, input).with_response(response),
            )
        } else {
            ("PostToolUseFailure", Event::tool_error(tool, input))
        };
        let mut r = self.record(hook, Some(Phase::Advance), Some(ev));
        r.tool_use_id = Some(id);
        self.records.push(r);
        self.wait(900)
    }

    /// A call that is allowed and then fails with `error` (PostToolUseFailure).
    pub fn fail(&mut self, tool: &str, input: Value, error: &str) -> &mut Self {
        self.n += 1;
        let id = format!("toolu_{:04}", self.n);
        let mut pre = self.record(
            "PreToolUse",
            Some(Phase::Gate),
            Some(Event::tool(tool, input.clone())),
        );
        pre.tool_use_id = Some(id.clone());
        self.records.push(pre);
        self.wait(300);
        let ev = Event::tool_failure(tool, input, Some(error));
        let mut r = self.record("PostToolUseFailure", Some(Phase::Advance), Some(ev));
        r.tool_use_id = Some(id);
        self.records.push(r);
        self.wait(900)
    }

    /// A PreToolUse the hook could not process (its own failure, answered fail-open): a record
    /// with the error and no event, as the hook writes it; the call then runs.
    pub fn lapse(&mut self, tool: &str, input: Value, error: &str) -> &mut Self {
        self.n += 1;
        let mut r = Record::new(rfc3339(self.t), self.session.clone(), "PreToolUse");
        r.agent = self.agent.clone();
        r.error = Some(format!("seed: {error}"));
        r.ms = Some(52.0);
        r.extra = json!({ "fail": "open" });
        self.records.push(r);
        self.wait(60);
        let mut post = self.record(
            "PostToolUse",
            Some(Phase::Advance),
            Some(Event::tool(tool, input)),
        );
        post.tool_use_id = Some(format!("toolu_{:04}", self.n));
        self.records.push(post);
        self.wait(600)
    }

    pub fn jsonl(&self) -> String {
        let mut s = String::new();
        for r in &self.records {
            s.push_str(&serde_json::to_string(r).expect("record serializes"));
            s.push('\n');
        }
        s
    }
}

/// The demo session the snapshot tests show: identity, a denial, context, a subagent, a
/// waypoint journey (a loop) with deep state, a failed write, a tier-2 denial, a lapse, and a
/// call still running.
pub fn demo_session() -> Script {
    let mut s = Script::new("s-7f3a");
    s.fact("waypoint_status", Value::Null)
        .fact("starlog_status", json!(2))
        .fact("flight_status", Value::Null)
        .lifecycle("SessionStart")
        .prompt("Orient yourself, then start a waypoint journey on the parser")
        .call("mcp__seed__who_am_i", json!({}), 320, Some(true))
        .call("Read", json!({"file_path": "/repo/README.md"}), 40, Some(true))
        .call("mcp__starship__fly", json!({"course": "parser"}), 0, Some(true))
        .call("mcp__seed__what_do_i_do", json!({}), 250, Some(true))
        .call("mcp__starlog__check", json!({"path": "/repo"}), 610, Some(true))
        .call(
            "Bash",
            json!({"command": "cargo test \u{1b}[31m--all\u{1b}[0m\n&& echo \u{1b}]0;pwned\u{7}done"}),
            0,
            Some(true),
        )
        .lapse("Grep", json!({"pattern": "TODO"}), "snapshot lock timed out after 50 ms");
    s.agent = Some("agent-a1b2".into());
    s.lifecycle("SubagentStart")
        .call("Grep", json!({"pattern": "fn parse"}), 130, Some(true))
        .lifecycle("SubagentStop");
    s.agent = None;
    s.call("mcp__starlog__orient", json!({}), 1200, Some(true))
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
        .wait(2000)
        .fact("waypoint_status", json!("active"))
        .call(
            "Write",
            json!({"file_path": "/repo/src/parser.rs"}),
            90,
            Some(false),
        )
        .call(
            "mcp__heaven-subagent__spawn",
            json!({"task": "review"}),
            0,
            Some(true),
        )
        .call(
            "mcp__waypoint__navigate_to_next_waypoint",
            json!({}),
            300,
            Some(true),
        )
        .prompt("/hope:intent keep going")
        .call(
            "mcp__waypoint__navigate_to_next_waypoint",
            json!({}),
            280,
            Some(true),
        )
        .call("Edit", json!({"file_path": "/repo/src/parser.rs"}), 0, None);
    s
}

/// The demo's opening, then a loop block (navigate calls, reads, a denied call now and then,
/// prompts) to repeat with fresh ids and times.
fn pieces(session: &str) -> (Vec<Record>, Vec<Record>) {
    let mut s = demo_session();
    s.session = session.into();
    let start = s.records.len();
    for i in 0..40 {
        match i % 10 {
            3 => s.call(
                "Read",
                json!({"file_path": format!("/repo/src/m{i}.rs")}),
                30,
                Some(true),
            ),
            6 => s.call(
                "mcp__heaven-subagent__spawn",
                json!({"task": "x"}),
                0,
                Some(true),
            ),
            9 => s.prompt("keep going"),
            _ => s.call(
                "mcp__waypoint__navigate_to_next_waypoint",
                json!({"step": i}),
                200,
                Some(true),
            ),
        };
    }
    for r in &mut s.records {
        r.session = session.into();
    }
    (s.records[..start].to_vec(), s.records[start..].to_vec())
}

/// Calls `f` with each of `n` records of a long session, in order.
pub fn for_each_record(n: usize, session: &str, mut f: impl FnMut(&Record)) {
    let (head, block) = pieces(session);
    let mut count = 0;
    for r in head.iter().take(n) {
        f(r);
        count += 1;
    }
    let mut ms = 1_768_500_000_000i64;
    let mut k = 0u64;
    while count < n {
        for r in &block {
            if count >= n {
                return;
            }
            let mut r = r.clone();
            ms += 350;
            r.ts = rfc3339(ms);
            if let Some(id) = &r.tool_use_id {
                r.tool_use_id = Some(format!("{id}-{k}"));
            }
            f(&r);
            count += 1;
        }
        k += 1;
    }
}

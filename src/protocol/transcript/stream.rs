//! One transcript file (the main session or a subagent's) turned into hook records, line by line.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde_json::{Value, json};

use super::line::{self, Parsed, TEXT_LIMIT, flag, str_at};
use crate::engine::{Event, Phase};
use crate::store::record::Record;

mod agents;
mod calls;
mod refusal;

/// Counts shared by the main file and the subagent files: each tool_use id counts once.
#[derive(Debug, Default)]
pub(super) struct Totals {
    pub tool_ids: HashSet<String>,
    pub tools: BTreeMap<String, usize>,
    pub skipped_lines: usize,
    pub unmatched_results: usize,
}

struct PendingTool {
    name: String,
    input: Value,
    agent: Option<String>,
    seq: usize,
    /// Index of its PreToolUse record, which a hook's refusal completes.
    gate: usize,
}

/// A sidechain written inline in the main file (the old layout).
struct InlineAgent {
    id: String,
    /// The Task/Agent call it runs for, when it could be told.
    spawner: Option<String>,
    /// `agentId` was missing, so the id was made up.
    synthetic: bool,
}

pub(super) struct Stream<'t> {
    totals: &'t mut Totals,
    /// `Some` for a subagent file: every line belongs to that agent.
    file_agent: Option<String>,
    records: Vec<Record>,
    seen_uuids: HashSet<String>,
    pending: HashMap<String, PendingTool>,
    done: HashSet<String>,
    seq: usize,
    last_ts: String,
    session: Option<String>,
    started: bool,
    inline_agents: Vec<InlineAgent>,
    sidechains: usize,
    /// A Stop was emitted since the main thread last prompted or called a tool.
    turn_stopped: bool,
    /// A main-thread answer with no pending call and no `stop_reason` (older files): the turn
    /// ended here unless a tool call or an interruption follows. Holds its timestamp.
    stop_candidate: Option<String>,
    last_text: String,
    /// The last record was a compaction / this command: the next copy of it is the same event.
    after_compaction: bool,
    last_command: Option<String>,
}

pub(super) struct StreamOutput {
    pub records: Vec<Record>,
    pub session: Option<String>,
}

impl<'t> Stream<'t> {
    pub fn new(totals: &'t mut Totals, file_agent: Option<String>) -> Stream<'t> {
        Stream {
            totals,
            file_agent,
            records: Vec::new(),
            seen_uuids: HashSet::new(),
            pending: HashMap::new(),
            done: HashSet::new(),
            seq: 0,
            last_ts: String::new(),
            session: None,
            started: false,
            inline_agents: Vec::new(),
            sidechains: 0,
            turn_stopped: false,
            stop_candidate: None,
            last_text: String::new(),
            after_compaction: false,
            last_command: None,
        }
    }

    pub fn line(&mut self, bytes: &[u8]) {
        let v = match line::parse(bytes) {
            Parsed::Value(v) => v,
            Parsed::Blank => return,
            Parsed::Malformed => {
                self.totals.skipped_lines += 1;
                return;
            }
        };
        // A line written twice (a retried write, a resumed session) is one event.
        if let Some(uuid) = str_at(&v, "uuid")
            && !self.seen_uuids.insert(uuid.to_string())
        {
            return;
        }
        if let Some(ts) = str_at(&v, "timestamp") {
            if self.last_ts.is_empty() {
                // Records made before the first known time take it.
                for record in &mut self.records {
                    record.ts = ts.to_string();
                }
            }
            self.last_ts = ts.to_string();
        }
        let ts = self.last_ts.clone();
        if self.session.is_none() {
            self.session = str_at(&v, "sessionId").map(str::to_string);
        }
        if !self.started {
            self.start(&v, &ts);
        }
        let kind = str_at(&v, "type").unwrap_or("");
        if !matches!(kind, "user" | "assistant" | "system") {
            return;
        }
        let agent = self.agent_of(&v, &ts);
        match kind {
            "user" => self.user(&v, &ts, agent),
            "assistant" => self.assistant(&v, &ts, agent),
            _ => self.system(&v, &ts, agent),
        }
    }

    pub fn finish(mut self) -> StreamOutput {
        let ts = self.last_ts.clone();
        if self.started {
            match self.file_agent.clone() {
                Some(agent) => self.subagent_stop(&agent, &ts),
                None => {
                    self.close_inline(&ts, |_| true);
                    self.flush_stop();
                    self.emit(
                        &ts,
                        "SessionEnd",
                        Phase::Advance,
                        Event::lifecycle("SessionEnd"),
                        None,
                    )
                    .extra = json!({ "reason": "other" });
                }
            }
        }
        StreamOutput {
            records: self.records,
            session: self.session,
        }
    }

    fn emit(
        &mut self,
        ts: &str,
        hook: &str,
        phase: Phase,
        event: Event,
        agent: Option<&str>,
    ) -> &mut Record {
        self.after_compaction = false;
        self.last_command = None;
        let mut record = Record::new(ts, "", hook);
        record.phase = Some(phase);
        record.event = Some(event);
        record.agent = agent.map(str::to_string);
        self.records.push(record);
        let last = self.records.len() - 1;
        &mut self.records[last]
    }

    fn start(&mut self, v: &Value, ts: &str) {
        self.started = true;
        match self.file_agent.clone() {
            None => {
                let mut extra = json!({ "source": "startup" });
                if let Some(cwd) = str_at(v, "cwd") {
                    extra["cwd"] = cwd.into();
                }
                self.emit(
                    ts,
                    "SessionStart",
                    Phase::Advance,
                    Event::lifecycle("SessionStart"),
                    None,
                )
                .extra = extra;
            }
            Some(file_agent) => {
                // The id the spawning call reports is the one in the lines, when present.
                let agent = str_at(v, "agentId").map_or(file_agent, str::to_string);
                self.file_agent = Some(agent.clone());
                self.subagent_start(&agent, ts);
            }
        }
    }

    fn user(&mut self, v: &Value, ts: &str, agent: Option<String>) {
        let message = v.get("message");
        let blocks = line::blocks(message.and_then(|m| m.get("content")));
        let results: Vec<&Value> = blocks
            .iter()
            .copied()
            .filter(|b| str_at(b, "type") == Some("tool_result"))
            .collect();
        if !results.is_empty() {
            // `toolUseResult` and the refusal marks belong to the line, so they are only
            // unambiguous for a single result.
            let line = (results.len() == 1).then_some(v);
            for block in results {
                self.tool_result(block, line, ts);
            }
            return;
        }
        if agent.is_some() || self.file_agent.is_some() {
            // A subagent's prompt comes from its Task call, not from the user.
            return;
        }
        if flag(v, "isCompactSummary") {
            self.compaction(ts, None);
            return;
        }
        if flag(v, "isMeta") {
            return;
        }
        let Some(text) = line::content_text(message.and_then(|m| m.get("content"))) else {
            return;
        };
        // Claude Code's own notice (a background task finished) starts a turn but is no
        // prompt; 2.1.x marks the line, older versions only the text (`Event::prompt`).
        let notice = v.pointer("/origin/kind").and_then(Value::as_str) == Some("task-notification");
        if notice {
            self.new_turn();
            self.emit(
                ts,
                "UserPromptSubmit",
                Phase::Advance,
                Event::system_notification(&text),
                None,
            )
            .extra = json!({ "prompt": text });
        } else if let Some(prompt) = line::command_prompt(&text) {
            self.command(&prompt, ts);
        } else if line::is_interruption(&text) {
            self.stop_candidate = None;
        } else if !line::is_command_output(&text) && !text.trim().is_empty() {
            self.new_turn();
            self.emit(
                ts,
                "UserPromptSubmit",
                Phase::Advance,
                Event::prompt(&text),
                None,
            )
            .extra = json!({ "prompt": text });
        }
    }

    fn command(&mut self, prompt: &str, ts: &str) {
        let event = Event::prompt(prompt);
        // The same run is written as a user line and a `local_command` line: one event.
        if self.last_command.as_deref() == Some(event.name.as_str()) {
            return;
        }
        let name = event.name.clone();
        self.new_turn();
        self.emit(ts, "UserPromptSubmit", Phase::Advance, event, None)
            .extra = json!({ "prompt": prompt, "command": name });
        self.last_command = Some(name);
    }

    fn assistant(&mut self, v: &Value, ts: &str, agent: Option<String>) {
        if flag(v, "isApiErrorMessage") {
            return;
        }
        let message = v.get("message");
        let mut has_text = false;
        for block in line::blocks(message.and_then(|m| m.get("content"))) {
            if str_at(block, "type") == Some("tool_use") {
                self.tool_use(block, ts, agent.as_deref());
            } else if let Some(text) = line::block_text(block)
                && agent.is_none()
            {
                has_text = true;
                self.last_text = line::bounded(text, TEXT_LIMIT);
            }
        }
        if agent.is_some() || self.pending.values().any(|p| p.agent.is_none()) {
            return;
        }
        // One API message spans several lines; only its last carries the stop reason.
        match message.and_then(|m| m.get("stop_reason")) {
            Some(Value::String(reason)) if reason == "end_turn" => self.stop(ts),
            None | Some(Value::Null) if has_text => self.stop_candidate = Some(ts.to_string()),
            _ => {}
        }
    }

    fn system(&mut self, v: &Value, ts: &str, agent: Option<String>) {
        if agent.is_some() {
            return;
        }
        match str_at(v, "subtype") {
            Some("compact_boundary") => {
                let trigger = v
                    .pointer("/compactMetadata/trigger")
                    .and_then(Value::as_str);
                self.compaction(ts, trigger);
            }
            Some("local_command") => {
                if let Some(prompt) = str_at(v, "content").and_then(line::command_prompt) {
                    self.command(&prompt, ts);
                }
            }
            Some("stop_hook_summary") => self.stop(ts),
            _ => {}
        }
    }

    fn compaction(&mut self, ts: &str, trigger: Option<&str>) {
        // A boundary line and the summary line after it are one compaction.
        if self.after_compaction {
            return;
        }
        self.flush_stop();
        let pre = self.emit(
            ts,
            "PreCompact",
            Phase::Advance,
            Event::lifecycle("PreCompact"),
            None,
        );
        pre.extra = trigger.map_or(Value::Null, |t| json!({ "trigger": t }));
        self.emit(
            ts,
            "SessionStart",
            Phase::Advance,
            Event::lifecycle("SessionStart"),
            None,
        )
        .extra = json!({ "source": "compact" });
        self.after_compaction = true;
    }

    /// A main-thread prompt starts a turn; the previous one ended if it was answered.
    fn new_turn(&mut self) {
        self.flush_stop();
        self.turn_stopped = false;
        self.last_text.clear();
    }

    fn flush_stop(&mut self) {
        if let Some(ts) = self.stop_candidate.take() {
            self.stop(&ts);
        }
    }

    fn stop(&mut self, ts: &str) {
        self.stop_candidate = None;
        if self.turn_stopped {
            return;
        }
        self.turn_stopped = true;
        let message = self.last_text.clone();
        self.emit(ts, "Stop", Phase::Stop, Event::lifecycle("Stop"), None)
            .extra = json!({ "stop_hook_active": false, "last_assistant_message": message });
    }
}

//! Tool calls: each `tool_use` block is a PreToolUse; its `tool_result` the PostToolUse (or
//! PostToolUseFailure), carrying the call's name and input since the result has neither.

use serde_json::{Map, Value, json};

use super::super::line::{self, TEXT_LIMIT, flag, str_at};
use super::refusal::refused;
use super::{PendingTool, Stream};
use crate::engine::{Event, Phase};

impl Stream<'_> {
    pub(super) fn tool_use(&mut self, block: &Value, ts: &str, agent: Option<&str>) {
        let id = str_at(block, "id");
        if let Some(id) = id
            && !self.totals.tool_ids.insert(id.to_string())
        {
            return;
        }
        let name = str_at(block, "name")
            .filter(|n| !n.is_empty())
            .unwrap_or("unknown")
            .to_string();
        let input = block.get("input").cloned().unwrap_or(Value::Null);
        *self.totals.tools.entry(name.clone()).or_default() += 1;
        if agent.is_none() {
            self.stop_candidate = None;
            self.turn_stopped = false;
        }
        let record = self.emit(
            ts,
            "PreToolUse",
            Phase::Gate,
            Event::tool(&name, input.clone()),
            agent,
        );
        record.tool_use_id = id.map(str::to_string);
        record.extra = json!({ "tool_name": name });
        let gate = self.records.len() - 1;
        if let Some(id) = id {
            self.seq += 1;
            let agent = agent.map(str::to_string);
            self.pending.insert(
                id.to_string(),
                PendingTool {
                    name,
                    input,
                    agent,
                    seq: self.seq,
                    gate,
                },
            );
        }
    }

    /// `line` is the result's line when it holds this result alone: its `toolUseResult` and
    /// its marks (`permissionDecision`, `toolDenialKind`) are then this result's.
    pub(super) fn tool_result(&mut self, block: &Value, line: Option<&Value>, ts: &str) {
        let structured = line.and_then(|l| l.get("toolUseResult"));
        let Some(id) = str_at(block, "tool_use_id") else {
            self.totals.unmatched_results += 1;
            return;
        };
        if self.done.contains(id) {
            return;
        }
        let Some(call) = self.pending.remove(id) else {
            self.totals.unmatched_results += 1;
            return;
        };
        self.done.insert(id.to_string());
        // Refused before it ran (a hook's deny, or declined when asked): no result event, and
        // its gate records the refusal.
        if let Some(verdict) = refused(block, line, &call.name) {
            if let Some(gate) = self.records.get_mut(call.gate) {
                gate.verdict = Some(verdict);
            }
            return;
        }
        let spawned = structured
            .and_then(|r| str_at(r, "agentId"))
            .map(str::to_string);
        if call.agent.is_none() {
            self.close_inline(ts, |a| {
                a.spawner.as_deref() == Some(id) || spawned.as_deref() == Some(a.id.as_str())
            });
        }
        let mut extra = Map::new();
        extra.insert("tool_name".into(), call.name.clone().into());
        if let Some(agent) = &spawned {
            extra.insert("spawned_agent".into(), agent.clone().into());
        }
        let agent = call.agent.as_deref();
        let record = if flag(block, "is_error") {
            let error = match structured {
                Some(Value::String(text)) => Some(text.clone()),
                _ => line::content_text(block.get("content")),
            };
            extra.insert("is_error".into(), true.into());
            let error = line::bounded(&error.unwrap_or_default(), TEXT_LIMIT);
            let event = Event::tool_failure(&call.name, call.input, Some(&error));
            extra.insert("error".into(), error.into());
            self.emit(ts, "PostToolUseFailure", Phase::Advance, event, agent)
        } else {
            let response = match structured {
                Some(value @ (Value::Object(_) | Value::Array(_))) => Some(value),
                _ => block.get("content"),
            };
            // The event carries the result as the hook's does for a sequence that reads results
            // (`result contains "FAIL"`), so a replay judges as the hook judged.
            let stepped = crate::protocol::tool_result::result_for_engine(response, true);
            let info = response.map(line::response_info);
            let record = self.emit(
                ts,
                "PostToolUse",
                Phase::Advance,
                Event::tool(&call.name, call.input).with_response(stepped),
                agent,
            );
            record.response = info;
            record
        };
        record.tool_use_id = Some(id.to_string());
        record.extra = Value::Object(extra);
    }
}

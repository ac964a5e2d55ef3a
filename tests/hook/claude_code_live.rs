//! What the live Claude Code (2.1.328) sends that recorded payloads never showed: deferred
//! tools loaded through `ToolSearch`, background-task notifications arriving as prompts, and
//! `stop_hook_active` staying true for the rest of a turn.

use crate::support::hook as hook_common;

use hook_common::{Sandbox, payload};
use serde_json::{Value, json};

/// A PreToolUse as 2.1.328 sends it (`tool_use_id` and the model's input as given).
fn pre(tool: &str, input: Value, id: &str) -> Value {
    json!({ "tool_name": tool, "tool_input": input, "tool_use_id": id })
}

#[test]
fn tool_search_loading_seeds_tools_is_never_refused_or_warned_about() {
    for (sequence, mode) in [
        ("compound_intelligence", "enforce"),
        ("odyssean_anchor", "enforce"),
        ("hope", "advise"),
    ] {
        let s = Sandbox::new();
        s.write_config(&format!(
            "sequence = \"{sequence}\"\nenforcement = \"{mode}\"\n"
        ));
        let sid = "7d1c4a52-0f0e-4c59-9a51-5b0a2c6f0d11";
        let input = json!({ "query": "select:mcp__seed__who_am_i,mcp__seed__what_do_i_do", "max_results": 5 });
        let r = s.hook(
            &[],
            payload("PreToolUse", sid, pre("ToolSearch", input, "toolu_01Ts")),
        );
        assert_eq!(
            (r.stdout.as_str(), r.code),
            ("", 0),
            "{sequence}: {}",
            r.stderr
        );
        let gate = s.log_lines(sid).pop().expect("recorded");
        assert_eq!(gate["verdict"]["kind"], "neutral", "{sequence}: {gate}");
    }
}

//! seed's entries in a Claude Code settings value: found by their tag, merged in place,
//! removed, and nothing else touched.

use std::path::Path;

use serde_json::{Map, Value, json};

/// The tag in every command seed installs.
pub const MARKER: &str = "# seed-managed";
/// Seconds Claude Code waits for seed. A hook answers in a few milliseconds, and by its fail
/// mode once `hook_budget_ms` (at most 25 s) is spent: the timeout is above any budget.
pub const TIMEOUT_SECS: u64 = 30;
/// Events whose handler blocks the call when seed itself cannot answer (could not start,
/// crashed, timed out), under `fail = "closed"`: the gate.
pub const BLOCK_ON_FAILURE: &[&str] = &["PreToolUse"];
/// Events seed is installed for, and whether they take a tool matcher.
pub const HOOK_EVENTS: &[(&str, bool)] = &[
    ("SessionStart", false),
    ("UserPromptSubmit", false),
    ("PreToolUse", true),
    ("PostToolUse", true),
    ("PostToolUseFailure", true),
    ("Stop", false),
    ("SubagentStart", false),
    ("SubagentStop", false),
    ("PreCompact", false),
    ("SessionEnd", false),
];

/// Quote for a POSIX shell when needed.
pub fn shell_quote(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+:=@,".contains(c))
    {
        return s.to_string();
    }
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// The small executable that runs only the hook (`seed-hook EVENT` = `seed hook EVENT`).
pub const HOOK_BIN: &str = if cfg!(windows) {
    "seed-hook.exe"
} else {
    "seed-hook"
};

/// Whether `bin` names the small hook executable rather than `seed`.
pub fn is_hook_bin(bin: &str) -> bool {
    Path::new(bin)
        .file_name()
        .is_some_and(|n| n == HOOK_BIN || n == "seed-hook")
}

/// `BIN hook [--sequence S] EVENT`, or `seed-hook [--sequence S] EVENT` for the hook executable.
pub fn hook_command(bin: &str, event: &str, sequence: Option<&str>) -> String {
    let seq = sequence
        .map(|s| format!(" --sequence {}", shell_quote(s)))
        .unwrap_or_default();
    let sub = if is_hook_bin(bin) { "" } else { " hook" };
    format!("{}{sub}{seq} {event} {MARKER}", shell_quote(bin))
}

pub fn is_seed_handler(h: &Value) -> bool {
    h.get("command")
        .and_then(Value::as_str)
        .is_some_and(|c| c.contains(MARKER))
}

/// seed's handler for `event`; with `fail_closed`, a gate's handler also makes Claude Code
/// block the call when the hook fails (`"onFailure": "block"`), as seed's own answer would.
fn desired_handler(event: &str, bin: &str, sequence: Option<&str>, fail_closed: bool) -> Value {
    let mut h = json!({
        "type": "command",
        "command": hook_command(bin, event, sequence),
        "timeout": TIMEOUT_SECS,
    });
    if fail_closed && BLOCK_ON_FAILURE.contains(&event) {
        h["onFailure"] = json!("block");
    }
    h
}

fn hooks_map(root: &mut Map<String, Value>) -> Result<&mut Map<String, Value>, String> {
    let hooks = root.entry("hooks").or_insert_with(|| json!({}));
    hooks
        .as_object_mut()
        .ok_or_else(|| "`hooks` is not an object".to_string())
}

/// A group whose matcher covers everything (missing, `""` or `"*"`): the only kind of group
/// seed's handler belongs in, since seed must see every event.
fn matches_all(g: &Value) -> bool {
    match g.get("matcher") {
        None | Some(Value::Null) => true,
        Some(Value::String(m)) => m.is_empty() || m == "*",
        Some(_) => false,
    }
}

/// Add (or update in place) seed's handler for every event. Only seed's own tagged handlers
/// are replaced: a handler of yours in the same group stays, next to it, in its place.
/// Running it twice changes nothing.
pub fn merge(
    settings: Value,
    bin: &str,
    sequence: Option<&str>,
    fail_closed: bool,
) -> Result<Value, String> {
    let Value::Object(mut root) = settings else {
        return Err("the settings file is not a JSON object".into());
    };
    let hooks = hooks_map(&mut root)?;
    for &(event, matcher) in HOOK_EVENTS {
        let handler = desired_handler(event, bin, sequence, fail_closed);
        let list = hooks.entry(event).or_insert_with(|| json!([]));
        let arr = list
            .as_array_mut()
            .ok_or_else(|| format!("`hooks.{event}` is not an array"))?;
        // Where seed's handler was first found in a group covering everything: it goes back
        // there. Every tagged handler is taken out (older copies, ones in narrower groups).
        let mut home: Option<(usize, usize)> = None;
        let mut had_seed = vec![false; arr.len()];
        for (gi, g) in arr.iter_mut().enumerate() {
            let covers = matches_all(g);
            let Some(hs) = g.get_mut("hooks").and_then(Value::as_array_mut) else {
                continue;
            };
            if let Some(hi) = hs.iter().position(is_seed_handler) {
                had_seed[gi] = true;
                if home.is_none() && covers {
                    home = Some((gi, hi));
                }
                hs.retain(|h| !is_seed_handler(h));
            }
        }
        match home {
            Some((gi, hi)) => {
                if let Some(hs) = arr[gi].get_mut("hooks").and_then(Value::as_array_mut) {
                    hs.insert(hi.min(hs.len()), handler);
                }
            }
            None => arr.push(if matcher {
                json!({ "matcher": "*", "hooks": [handler] })
            } else {
                json!({ "hooks": [handler] })
            }),
        }
        // Groups that held nothing but seed's handlers are gone with them.
        let mut i = 0;
        arr.retain(|g| {
            let keep = !(had_seed.get(i).copied().unwrap_or(false) && group_is_empty(g));
            i += 1;
            keep
        });
    }
    Ok(Value::Object(root))
}

fn strip_seed(group: &mut Value) -> usize {
    let Some(hs) = group.get_mut("hooks").and_then(Value::as_array_mut) else {
        return 0;
    };
    let before = hs.len();
    hs.retain(|h| !is_seed_handler(h));
    before - hs.len()
}

fn group_is_empty(g: &Value) -> bool {
    g.get("hooks")
        .and_then(Value::as_array)
        .is_some_and(Vec::is_empty)
}

/// Remove seed's handlers (and only those); groups, event lists and `hooks` left empty by
/// that are removed too. Returns the new settings and how many handlers went.
pub fn remove(settings: Value) -> Result<(Value, usize), String> {
    let Value::Object(mut root) = settings else {
        return Err("the settings file is not a JSON object".into());
    };
    let mut removed = 0;
    if let Some(hooks) = root.get_mut("hooks").and_then(Value::as_object_mut) {
        for list in hooks.values_mut() {
            let Some(arr) = list.as_array_mut() else {
                continue;
            };
            arr.retain_mut(|g| {
                let n = strip_seed(g);
                removed += n;
                !(n > 0 && group_is_empty(g))
            });
        }
        if removed > 0 {
            hooks.retain(|_, v| !v.as_array().is_some_and(Vec::is_empty));
        }
    }
    if removed > 0
        && root
            .get("hooks")
            .is_some_and(|h| h.as_object().is_some_and(Map::is_empty))
    {
        root.remove("hooks");
    }
    Ok((Value::Object(root), removed))
}

/// One of seed's handlers in a settings value: the event, its group's matcher (`None`: the
/// group has none) and the command.
#[derive(Debug, Clone, PartialEq)]
pub struct Handler {
    pub event: String,
    pub matcher: Option<String>,
    pub command: String,
    /// Seconds Claude Code gives it (`None`: Claude Code's default).
    pub timeout: Option<f64>,
    /// Its `onFailure` (`"block"`: Claude Code blocks the call when the hook fails).
    pub on_failure: Option<String>,
}

/// seed's handlers in a settings value, every event and every matcher group.
pub fn seed_handlers(settings: &Value) -> Vec<Handler> {
    let mut out = Vec::new();
    let Some(hooks) = settings.get("hooks").and_then(Value::as_object) else {
        return out;
    };
    for (event, list) in hooks {
        for g in list.as_array().into_iter().flatten() {
            let matcher = g.get("matcher").and_then(Value::as_str).map(String::from);
            for h in g
                .get("hooks")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                if is_seed_handler(h)
                    && let Some(c) = h.get("command").and_then(Value::as_str)
                {
                    out.push(Handler {
                        event: event.clone(),
                        matcher: matcher.clone(),
                        command: c.to_string(),
                        timeout: h.get("timeout").and_then(Value::as_f64),
                        on_failure: h.get("onFailure").and_then(Value::as_str).map(String::from),
                    });
                }
            }
        }
    }
    out
}

/// seed's entries in a settings value: (event, command).
pub fn find_entries(settings: &Value) -> Vec<(String, String)> {
    seed_handlers(settings)
        .into_iter()
        .map(|h| (h.event, h.command))
        .collect()
}

/// Parse a settings file's text: empty means `{}`; anything unparseable is refused.
pub fn parse_settings(path: &Path, text: &str) -> Result<Value, String> {
    if text.trim().is_empty() {
        return Ok(json!({}));
    }
    let v: Value = serde_json::from_str(text).map_err(|e| {
        format!(
            "{}:{}:{}: not valid JSON ({}); the file was left untouched",
            path.display(),
            e.line(),
            e.column(),
            e.to_string().split(" at line").next().unwrap_or("")
        )
    })?;
    if !v.is_object() {
        return Err(format!(
            "{}: not a JSON object; the file was left untouched",
            path.display()
        ));
    }
    Ok(v)
}

pub fn render(v: &Value) -> String {
    let mut s = serde_json::to_string_pretty(v).unwrap_or_else(|_| "{}".into());
    s.push('\n');
    s
}

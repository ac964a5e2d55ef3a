//! The transition-label mini-language (statecharts reference §5.2c):
//!
//! ```text
//! label   := [ trigger ] [ '[' guard ']' ] [ '/' action { ',' action } ]
//! trigger := pattern { '|' pattern }      starlog.orient | skill:hope:intent | /hope:intent | Stop
//! guard   := else | expr                  flag x, !flag x, in(State), x == "v", score >= 8,
//!                                         reader(name) == v, input.stage == "init", &&, ||, !, ( )
//! action  := set flag x | clear flag x | x = value | x = input.field | note text
//!          | x += input.field | x += result.field      (remember in list x, once each)
//! ```
//!
//! A trigger alternative must look like an event (a kind prefix, `/command`, a dotted or
//! `mcp__` name, a glob, a Claude Code tool or hook name), so prose such as `Yes` or
//! `all items done` is recognised as documentation rather than read as a tool called `Yes`.

use super::guard_expr::{self, GuardExpr};
use crate::engine::ir::{Action, ResultPart};
use crate::engine::pattern::Pattern;

/// Claude Code's built-in tools: a bare word that names one is a trigger, not prose.
pub const KNOWN_TOOLS: &[&str] = &[
    "Agent",
    "AskUserQuestion",
    "Bash",
    "BashOutput",
    "Edit",
    "EnterPlanMode",
    "ExitPlanMode",
    "Glob",
    "Grep",
    "KillBash",
    "KillShell",
    "LS",
    "ListMcpResourcesTool",
    "MultiEdit",
    "NotebookEdit",
    "NotebookRead",
    "Read",
    "ReadMcpResourceTool",
    "SlashCommand",
    "Skill",
    "Task",
    "TodoRead",
    "TodoWrite",
    "WebFetch",
    "WebSearch",
    "Write",
];

/// Claude Code hook events that are not tool calls: a bare word naming one is a lifecycle
/// trigger (`Stop` means `lifecycle:Stop`).
pub const HOOK_EVENTS: &[&str] = &[
    "SessionStart",
    "SessionEnd",
    "Stop",
    "SubagentStart",
    "SubagentStop",
    "PreCompact",
    "Notification",
];

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Label {
    pub trigger: Option<Pattern>,
    pub guard: Option<GuardExpr>,
    /// `[else]`: the default branch of a choice.
    pub is_else: bool,
    pub actions: Vec<Action>,
}

impl Label {
    pub fn is_empty(&self) -> bool {
        self.trigger.is_none() && self.guard.is_none() && !self.is_else && self.actions.is_empty()
    }
}

/// Why a label is not in the mini-language; `col` is a 0-based character offset in the label.
#[derive(Debug, Clone, PartialEq)]
pub struct LabelError {
    pub col: usize,
    pub message: String,
    /// A size or nesting limit was hit: hostile input, an error even in a diagram (where
    /// other unparseable labels are kept as documentation).
    pub limit: bool,
}

fn err<T>(col: usize, message: impl Into<String>) -> Result<T, LabelError> {
    Err(LabelError {
        limit: false,
        col,
        message: message.into(),
    })
}

/// Labels longer than this are refused (as the workflow dialect's expressions): a label is a
/// line of a drawing, and a hostile one would otherwise cost time on every load.
pub const MAX_LABEL_CHARS: usize = 4096;

/// Parse a transition label. An empty label is `Ok(Label::default())`.
pub fn parse(text: &str) -> Result<Label, LabelError> {
    let chars: Vec<char> = text.chars().collect();
    if chars.len() > MAX_LABEL_CHARS {
        return Err(LabelError {
            limit: true,
            col: MAX_LABEL_CHARS,
            message: format!("label longer than {MAX_LABEL_CHARS} characters"),
        });
    }
    let mut label = Label::default();
    let end = trigger_end(&chars);
    let trigger_text: String = chars[..end].iter().collect();
    if !trigger_text.trim().is_empty() {
        let lead = trigger_text.len() - trigger_text.trim_start().len();
        label.trigger = Some(parse_trigger(trigger_text.trim()).map_err(|mut e| {
            e.col += lead;
            e
        })?);
    }
    let mut pos = end;
    // 2. Guard.
    if chars.get(pos) == Some(&'[') {
        let close = matching_bracket(&chars, pos).ok_or(LabelError {
            limit: false,
            col: pos,
            message: "unclosed `[`: expected `]` after the guard".into(),
        })?;
        let inner: String = chars[pos + 1..close].iter().collect();
        if inner.trim() == "else" {
            label.is_else = true;
        } else {
            let g = guard_expr::parse(&inner).map_err(|mut e| {
                e.col += pos + 1;
                e
            })?;
            label.guard = Some(g);
        }
        pos = close + 1;
        while chars.get(pos).is_some_and(|c| c.is_whitespace()) {
            pos += 1;
        }
    }
    // 3. Actions.
    if chars.get(pos) == Some(&'/') {
        let rest: String = chars[pos + 1..].iter().collect();
        label.actions = parse_actions(&rest, pos + 1)?;
        pos = chars.len();
    }
    if pos < chars.len() {
        return err(
            pos,
            "expected `[guard]`, `/ actions` or the end of the label",
        );
    }
    Ok(label)
}

/// Where the trigger ends: at `[`, or at a `/` followed by whitespace (an action list),
/// outside quotes and parentheses; `/hope:intent` stays a command trigger.
fn trigger_end(chars: &[char]) -> usize {
    let (mut depth, mut quoted) = (0i32, false);
    for (i, &c) in chars.iter().enumerate() {
        match c {
            '"' => quoted = !quoted,
            '(' if !quoted => depth += 1,
            ')' if !quoted => depth -= 1,
            '[' if !quoted && depth == 0 => return i,
            '/' if !quoted && depth == 0 && chars.get(i + 1).is_none_or(|n| n.is_whitespace()) => {
                return i;
            }
            _ => {}
        }
    }
    chars.len()
}

/// For a label that does not parse: the error to report when it was meant as the
/// mini-language, or `None` when it is prose (documentation). It is meant when it has a
/// `[guard]`, has no trigger before its `/ actions`, or starts with an event name (`x.go`,
/// `Stop`, one alternative of `a | b`): a typo there must not turn the edge into prose.
pub fn attempted(text: &str, err: &LabelError) -> Option<LabelError> {
    if err.limit {
        return Some(err.clone());
    }
    let chars: Vec<char> = text.chars().collect();
    let end = trigger_end(&chars);
    let trigger: String = chars[..end].iter().collect();
    if chars.get(end) == Some(&'[') || trigger.trim().is_empty() {
        return Some(err.clone());
    }
    let alts = split_outside_parens(&trigger, '|');
    if alts.iter().any(|a| event_shaped(a.trim()).is_some()) {
        return Some(err.clone());
    }
    // `x.go oops`: an event name (one a word of prose could not be) and then more text.
    let lead = trigger.chars().take_while(|c| c.is_whitespace()).count();
    let first = trigger.split_whitespace().next().unwrap_or("");
    let bare = KNOWN_TOOLS.contains(&first) || HOOK_EVENTS.contains(&first);
    if alts.len() == 1 && !bare && !first.contains('(') && event_shaped(first).is_some() {
        let after = &trigger.trim_start()[first.len()..];
        let gap = after.chars().take_while(|c| c.is_whitespace()).count();
        let found = after.split_whitespace().next().unwrap_or("");
        return Some(LabelError {
            limit: false,
            col: lead + first.chars().count() + gap,
            message: format!(
                "expected `|`, `[guard]`, `/ actions` or the end of the label after `{first}`, found `{found}`"
            ),
        });
    }
    None
}

fn matching_bracket(chars: &[char], open: usize) -> Option<usize> {
    let (mut depth, mut quoted) = (0i32, false);
    for (i, &c) in chars.iter().enumerate().skip(open) {
        match c {
            '"' => quoted = !quoted,
            '[' if !quoted => depth += 1,
            ']' if !quoted => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// `a | b | c`: each alternative must look like an event.
pub fn parse_trigger(text: &str) -> Result<Pattern, LabelError> {
    let mut alts = Vec::new();
    let mut offset = 0usize;
    for part in split_outside_parens(text, '|') {
        let lead = part.chars().take_while(|c| c.is_whitespace()).count();
        let token = part.trim();
        match event_shaped(token) {
            Some(p) => alts.push(p),
            None => {
                return err(offset + lead, format!("`{token}` is not an event name"));
            }
        }
        offset += part.chars().count() + 1;
    }
    Pattern::parse(&alts.join("|")).map_err(|e| LabelError {
        limit: false,
        col: 0,
        message: e.to_string(),
    })
}

fn split_outside_parens(s: &str, sep: char) -> Vec<&str> {
    let (mut out, mut depth, mut quoted, mut start) = (Vec::new(), 0i32, false, 0usize);
    for (i, c) in s.char_indices() {
        match c {
            '"' => quoted = !quoted,
            '(' if !quoted => depth += 1,
            ')' if !quoted => depth -= 1,
            c if c == sep && depth == 0 && !quoted => {
                out.push(&s[start..i]);
                start = i + c.len_utf8();
            }
            _ => {}
        }
    }
    out.push(&s[start..]);
    out
}

/// The pattern text for a token that looks like an event, or `None` for prose.
pub fn event_shaped(token: &str) -> Option<String> {
    // Prompt patterns match the prompt's text, spaces included.
    if token.len() > 7 && token.starts_with("prompt:") {
        return Some(token.to_string());
    }
    let (head, args) = match token.find('(') {
        Some(i) if token.ends_with(')') => (&token[..i], Some(&token[i..])),
        Some(_) => return None,
        None => (token, None),
    };
    if head.is_empty() || head.chars().any(|c| c.is_whitespace()) {
        return None;
    }
    let ok_chars = head
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "_-.:*?/".contains(c));
    if !ok_chars {
        return None;
    }
    let args = args.unwrap_or("");
    if HOOK_EVENTS.contains(&head) {
        return Some(format!("lifecycle:{head}{args}"));
    }
    if head == "UserPromptSubmit" {
        return Some("prompt:*|command:*".into());
    }
    let dotted = head
        .split_once('.')
        .is_some_and(|(a, b)| !a.is_empty() && !b.is_empty());
    let shaped = KNOWN_TOOLS.contains(&head)
        || (head.starts_with('/') && head.len() > 1)
        || head.contains(':')
        || dotted
        || head.contains("__")
        || head.contains(['*', '?']);
    shaped.then(|| format!("{head}{args}"))
}

fn parse_actions(text: &str, base: usize) -> Result<Vec<Action>, LabelError> {
    let mut out = Vec::new();
    let mut offset = base;
    let mut rest = text;
    while !rest.trim().is_empty() {
        let lead = rest.chars().take_while(|c| c.is_whitespace()).count();
        let trimmed = rest.trim_start();
        // `note` takes the rest of the label, commas included.
        if let Some(note) = trimmed.strip_prefix("note ") {
            out.push(Action::Note {
                text: note.trim().to_string(),
            });
            break;
        }
        let first = split_outside_parens(trimmed, ',')[0];
        out.push(parse_action(first.trim()).map_err(|m| LabelError {
            limit: false,
            col: offset + lead,
            message: m,
        })?);
        offset += lead + first.chars().count() + 1;
        rest = trimmed.get(first.len() + 1..).unwrap_or("");
    }
    Ok(out)
}

fn parse_action(item: &str) -> Result<Action, String> {
    let words: Vec<&str> = item.split_whitespace().collect();
    match words.as_slice() {
        ["set", "flag", name] | ["set", name] if is_name(name) => {
            return Ok(Action::SetFlag {
                name: (*name).into(),
                value: true,
            });
        }
        ["clear", "flag", name] | ["unset", "flag", name] if is_name(name) => {
            return Ok(Action::SetFlag {
                name: (*name).into(),
                value: false,
            });
        }
        _ => {}
    }
    if let Some((name, from)) = item.split_once("+=") {
        return remember(name.trim(), from.trim());
    }
    if let Some((name, value)) = item.split_once('=') {
        let name = name.trim();
        if !is_name(name) {
            return Err(format!("`{name}` is not a variable name"));
        }
        let value = value.trim();
        if let Some(path) = value.strip_prefix("input.") {
            return Ok(Action::SetVarFromInput {
                name: name.into(),
                pointer: format!("/{}", path.replace('.', "/")),
            });
        }
        return Ok(Action::SetVar {
            name: name.into(),
            value: guard_expr::parse_value(value)?,
        });
    }
    Err(format!(
        "`{item}` is not an action: expected `set flag x`, `clear flag x`, `x = value`, `x = input.field`, `x += input.field` or `note text`"
    ))
}

/// `x += input.field` / `x += result.field`: the per-file memory of a list variable.
fn remember(name: &str, from: &str) -> Result<Action, String> {
    if !is_name(name) {
        return Err(format!("`{name}` is not a variable name"));
    }
    let (part, path) = if let Some(p) = from.strip_prefix("input.") {
        (ResultPart::Input, p)
    } else if let Some(p) = from.strip_prefix("result.") {
        (ResultPart::Response, p)
    } else {
        return Err(format!(
            "`{name} += {from}`: expected `input.field` or `result.field` after `+=`"
        ));
    };
    if path.is_empty() || !path.split('.').all(|seg| !seg.is_empty() && is_name(seg)) {
        return Err(format!("`{from}` is not a field path"));
    }
    Ok(Action::Remember {
        name: name.into(),
        from: part,
        pointer: format!("/{}", path.replace('.', "/")),
    })
}

pub fn is_name(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || "_-.".contains(c))
}

//! A call spelled as the agent makes it and as seed's refusals quote it: `Bash(command="git
//! push")`, `mcp__starship__fly`, `Skill(skill="hope:intent")`. Values are JSON (a string in
//! double quotes with JSON escapes, a number, `true`, an object…); a name alone is a call with
//! no input.

use serde_json::{Map, Value};

use crate::engine::Event;

/// Longest call text read: as much input as the hook keeps of one call.
pub const MAX_CALL_BYTES: usize = 1 << 20;

/// The call `text` names, as the hook would see it in a PreToolUse payload.
pub fn parse_call(text: &str) -> Result<Event, String> {
    let (name, input) = parse_parts(text)?;
    Ok(Event::tool(name, Value::Object(input)))
}

fn parse_parts(text: &str) -> Result<(&str, Map<String, Value>), String> {
    if text.len() > MAX_CALL_BYTES {
        return Err(format!(
            "the call is {} bytes; at most {MAX_CALL_BYTES} are read",
            text.len()
        ));
    }
    let text = text.trim();
    let (name, rest) = match text.find('(') {
        Some(i) => (&text[..i], Some(&text[i + 1..])),
        None => (text, None),
    };
    check_name(name)?;
    let Some(rest) = rest else {
        return Ok((name, Map::new()));
    };
    let Some(args) = rest.strip_suffix(')') else {
        return Err(format!("`{name}(` is not closed: end the call with `)`"));
    };
    Ok((name, parse_args(args)?))
}

/// A tool name: letters, digits and `_ - . : /` (`mcp__server__tool`, `hope:intent`).
fn check_name(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err(
            "no call: name a tool, e.g. Bash(command=\"git push\") or mcp__starship__fly".into(),
        );
    }
    let ok = |c: char| c.is_ascii_alphanumeric() || "_-.:/".contains(c);
    match name.chars().find(|c| !ok(*c)) {
        Some(c) => Err(format!(
            "`{}` is not a tool name: {c:?} is not allowed in one (write NAME or NAME(key=\"value\", …))",
            name.chars().take(60).collect::<String>().escape_debug()
        )),
        None => Ok(()),
    }
}

/// `key="value", key2=3`: each value one JSON value.
fn parse_args(mut args: &str) -> Result<Map<String, Value>, String> {
    let mut out = Map::new();
    loop {
        args = args.trim_start();
        if args.is_empty() {
            return Ok(out);
        }
        let Some((key, rest)) = args.split_once('=') else {
            return Err(format!(
                "expected key=value in the call's input, found `{}`",
                args.chars().take(40).collect::<String>().escape_debug()
            ));
        };
        let key = key.trim();
        if key.is_empty() || !key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(format!(
                "`{}` is not an input name",
                key.chars().take(40).collect::<String>().escape_debug()
            ));
        }
        let mut values = serde_json::Deserializer::from_str(rest).into_iter::<Value>();
        let value = match values.next() {
            Some(Ok(v)) => v,
            _ => {
                return Err(format!(
                    "the value of `{key}` is not JSON (quote text: {key}=\"…\")"
                ));
            }
        };
        out.insert(key.to_string(), value);
        args = rest[values.byte_offset()..].trim_start();
        args = match args.strip_prefix(',') {
            Some(more) => more,
            None if args.is_empty() => args,
            None => return Err(format!("expected `,` or `)` after the value of `{key}`")),
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::EventKind;

    #[test]
    fn calls_read_as_the_agent_makes_them() {
        let ev = parse_call(r#"Bash(command="git push", timeout=5)"#).unwrap();
        assert_eq!((ev.kind, ev.name.as_str()), (EventKind::Tool, "Bash"));
        assert_eq!(ev.input["command"], "git push");
        assert_eq!(ev.input["timeout"], 5);
        let ev = parse_call("mcp__starship__fly").unwrap();
        assert_eq!(ev.name, "starship.fly");
        let ev = parse_call(r#"Skill(skill="hope:intent")"#).unwrap();
        assert_eq!(
            (ev.kind, ev.name.as_str()),
            (EventKind::Skill, "hope:intent")
        );
        let ev = parse_call(r#"Write(file_path="a\"b", content="x,y)")"#).unwrap();
        assert_eq!(ev.input["file_path"], "a\"b");
        assert_eq!(ev.input["content"], "x,y)");
    }

    #[test]
    fn a_malformed_call_is_one_line_naming_what_is_wrong() {
        for bad in [
            "",
            "   ",
            "Bash(command=\"x\"",
            "Bash(command=x)",
            "Bash(=\"x\")",
            "Bash(command=\"x\" y=1)",
            "Ba sh",
            "Bash\u{1b}[31m",
            "(command=\"x\")",
        ] {
            let e = parse_call(bad).unwrap_err();
            assert!(!e.contains('\n') && !e.is_empty(), "{bad:?}: {e}");
        }
        let huge = format!("Bash(command=\"{}\")", "x".repeat(MAX_CALL_BYTES));
        assert!(parse_call(&huge).unwrap_err().contains("at most"));
    }
}

//! How a pattern is written: parsing `[kind:]glob(pointer=glob, …)|…` and printing it back,
//! which is also its serde form.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::{Alt, Pattern, PatternError};
use crate::engine::event::{EventKind, canonical_tool_name};
use crate::engine::ir::InputMatcher;

impl Pattern {
    pub fn parse(text: &str) -> Result<Pattern, PatternError> {
        let err = |reason: &str| PatternError {
            pattern: text.to_string(),
            reason: reason.into(),
        };
        let mut alts = Vec::new();
        for raw in split_top_level(text, '|') {
            let raw = raw.trim();
            if raw.is_empty() {
                return Err(err("empty alternative"));
            }
            alts.push(parse_alt(raw).map_err(|r| err(&r))?);
        }
        if alts.is_empty() {
            return Err(err("empty pattern"));
        }
        Ok(Pattern { alts })
    }
}

/// Split on `sep` outside parentheses.
fn split_top_level(s: &str, sep: char) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            c if c == sep && depth == 0 => {
                out.push(&s[start..i]);
                start = i + c.len_utf8();
            }
            _ => {}
        }
    }
    out.push(&s[start..]);
    out
}

fn parse_alt(raw: &str) -> Result<Alt, String> {
    let (head, args) = match raw.find('(') {
        Some(i) => {
            if !raw.ends_with(')') {
                return Err("unclosed `(`".into());
            }
            (&raw[..i], Some(&raw[i + 1..raw.len() - 1]))
        }
        None => (raw, None),
    };
    let head = head.trim();
    let (kind, glob) = if let Some(cmd) = head.strip_prefix('/') {
        (Some(EventKind::Command), cmd.to_string())
    } else {
        match head.split_once(':') {
            // `error.tool:Edit`, `skill:hope:intent`; but `hope:intent` keeps its colon.
            Some((k, rest)) if EventKind::parse(k).is_some() && !rest.is_empty() => {
                (EventKind::parse(k), rest.to_string())
            }
            _ => (None, head.to_string()),
        }
    };
    if glob.is_empty() {
        return Err("missing name".into());
    }
    if glob.chars().any(|c| c.is_whitespace()) && kind != Some(EventKind::Prompt) {
        return Err("names cannot contain spaces".into());
    }
    let glob = match kind {
        None | Some(EventKind::Tool) | Some(EventKind::ErrorTool) => canonical_glob(&glob),
        _ => glob,
    };
    let mut input = Vec::new();
    if let Some(args) = args {
        for part in split_top_level(args, ',') {
            let part = part.trim();
            if part.is_empty() {
                continue;
            }
            match part.split_once('=') {
                Some((k, v)) => {
                    let k = k.trim();
                    let ptr = if k.starts_with('/') {
                        k.to_string()
                    } else {
                        format!("/{k}")
                    };
                    input.push((ptr, InputMatcher::Glob(unquote(v.trim()).to_string())));
                }
                // Claude Code's permission-rule form: `Bash(git clone*)` matches the command.
                None => input.push(("/command".into(), InputMatcher::Glob(unquote(part).into()))),
            }
        }
    }
    Ok(Alt { kind, glob, input })
}

/// `mcp__github__*` → `github.*`, `mcp__*__odyssean_anchor` → `*.odyssean_anchor`,
/// `mcp__plugin_seed_seed__status` → `seed.status` (a plugin's server is the same server).
fn canonical_glob(glob: &str) -> String {
    canonical_tool_name(glob)
}

fn unquote(s: &str) -> &str {
    s.strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .unwrap_or(s)
}

impl fmt::Display for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self
            .alts
            .iter()
            .map(|a| {
                let mut s = match a.kind {
                    Some(EventKind::Command) => format!("/{}", a.glob),
                    Some(k) => format!("{}:{}", k.as_str(), a.glob),
                    None => a.glob.clone(),
                };
                if !a.input.is_empty() {
                    let args: Vec<String> = a
                        .input
                        .iter()
                        .map(|(p, m)| match m {
                            InputMatcher::Glob(g) => format!("{p}={g}"),
                            InputMatcher::Equals(v) => format!("{p}={v}"),
                            InputMatcher::Present => format!("{p}=*"),
                        })
                        .collect();
                    s.push_str(&format!("({})", args.join(",")));
                }
                s
            })
            .collect();
        f.write_str(&parts.join("|"))
    }
}

impl Serialize for Pattern {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}

impl<'de> Deserialize<'de> for Pattern {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Pattern::parse(&s).map_err(serde::de::Error::custom)
    }
}

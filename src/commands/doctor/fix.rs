//! What `seed doctor` says to do about a failed check, and failures told once: hooks that
//! failed the same way (ten `exit code 127` runs of a `seed` the shell cannot find) are one
//! group with one fix, not ten lines.

use serde_json::Value;

use crate::commands::install::shell_quote;

/// Failed checks of one scope with the same problems and the same stderr.
#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    pub scope: String,
    /// `SessionStart`, `PreToolUse [*]`…, in the order they ran.
    pub events: Vec<String>,
    pub problems: Vec<String>,
    pub stderr: String,
    pub fix: Option<String>,
}

/// The failed checks, grouped; each group keeps the place of its first check.
pub fn groups(checks: &[Value], exe: &str) -> Vec<Group> {
    let mut out: Vec<Group> = Vec::new();
    for c in checks.iter().filter(|c| c["ok"] != true) {
        let scope = text(&c["scope"]);
        let problems: Vec<String> = list(&c["problems"]);
        let stderr = text(&c["stderr"]);
        let event = match c["matcher"].as_str() {
            Some(m) => format!("{} [{m}]", text(&c["event"])),
            None => text(&c["event"]),
        };
        match out
            .iter_mut()
            .find(|g| g.scope == scope && g.problems == problems && g.stderr == stderr)
        {
            Some(g) => g.events.push(event),
            None => out.push(Group {
                fix: fix_for(&problems, &stderr, &text(&c["command"]), &scope, exe),
                scope,
                events: vec![event],
                problems,
                stderr,
            }),
        }
    }
    out
}

fn text(v: &Value) -> String {
    v.as_str().unwrap_or("").to_string()
}

fn list(v: &Value) -> Vec<String> {
    v.as_array()
        .map(|a| a.iter().map(text).collect())
        .unwrap_or_default()
}

/// The one thing to do about a failure seen before, when there is one.
pub fn fix_for(
    problems: &[String],
    stderr: &str,
    command: &str,
    scope: &str,
    exe: &str,
) -> Option<String> {
    let said = |s: &str| problems.iter().any(|p| p.contains(s)) || stderr.contains(s);
    let sequence = sequence_of(command);
    let reinstall = |sequence: Option<&str>, bin: Option<&str>| {
        let mut c = match scope {
            "user" | "project" | "local" => format!("seed install --{scope}"),
            _ => "seed install --local".to_string(),
        };
        if let Some(s) = sequence {
            c.push_str(&format!(" --sequence {}", shell_quote(s)));
        }
        if let Some(b) = bin {
            c.push_str(&format!(" --bin {}", shell_quote(b)));
        }
        c
    };
    if (said("exit code 127") || said("not found")) && scope == "plugin" {
        return Some(
            "the plugin's hooks run `seed` from PATH and the shell finds none: put it on PATH (`cargo install --path .` in seed's checkout)"
                .to_string(),
        );
    }
    let small = words(command)
        .first()
        .is_some_and(|b| crate::commands::install::is_hook_bin(b));
    if small && (said("exit code 127") || said("not found")) {
        // `seed install` writes `seed-hook` only where it found one beside `seed`: installed
        // again, the hooks run whichever is there now.
        return Some(format!(
            "the shell finds no `seed-hook` (installed beside `seed` by `cargo install --path .`): install seed again, or point the hooks at `seed hook` with `{}`",
            reinstall(sequence.as_deref(), None)
        ));
    }
    if said("exit code 127") || said("not found") {
        return Some(format!(
            "the shell finds no `seed` to run: put it on PATH (`cargo install --path .` in seed's checkout), or pin this one: `{}`",
            reinstall(sequence.as_deref(), Some(exe))
        ));
    }
    if said("exit code 126") || said("Permission denied") {
        return Some(format!(
            "the hook's command cannot be run (not executable): pin a working seed with `{}`",
            reinstall(sequence.as_deref(), Some(exe))
        ));
    }
    if said("no such sequence") {
        let meant = meant(problems, stderr);
        return Some(match (&sequence, meant) {
            (Some(_), Some(m)) => format!(
                "install the sequence meant: `{}`",
                reinstall(Some(&m), pinned_bin(command).as_deref())
            ),
            (Some(_), None) => {
                "install a sequence that exists (`seed sequences` lists them)".to_string()
            }
            (None, _) => {
                "the configured sequence does not exist: fix it where the sequence check above says"
                    .to_string()
            }
        });
    }
    if said("cannot load") || said("error[") || said(": expected") {
        return Some(
            "the sequence does not load: `seed validate NAME` shows where it breaks".to_string(),
        );
    }
    None
}

/// The name an error's "did you mean `X`?" suggests.
fn meant(problems: &[String], stderr: &str) -> Option<String> {
    problems
        .iter()
        .map(String::as_str)
        .chain([stderr])
        .find_map(|t| {
            let rest = t.split("did you mean `").nth(1)?;
            Some(rest.split('`').next()?.to_string())
        })
}

/// The words of a hook command seed wrote (`BIN hook [--sequence S] EVENT # seed-managed`),
/// unquoted as a POSIX shell would (`'my seq'`, `'it'\''s'`).
fn words(command: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut any = false;
    let mut chars = command.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                any = true;
                for q in chars.by_ref() {
                    if q == '\'' {
                        break;
                    }
                    cur.push(q);
                }
            }
            '\\' => {
                any = true;
                cur.extend(chars.next());
            }
            '#' if !any => break,
            c if c.is_whitespace() => {
                if any {
                    out.push(std::mem::take(&mut cur));
                    any = false;
                }
            }
            c => {
                any = true;
                cur.push(c);
            }
        }
    }
    if any {
        out.push(cur);
    }
    out
}

/// The `--sequence` a hook command passes.
pub fn sequence_of(command: &str) -> Option<String> {
    let w = words(command);
    let at = w.iter().position(|x| x == "--sequence")?;
    w.get(at + 1).cloned()
}

/// The `seed` a hook command runs, when it is not plain `seed` from PATH (`seed-hook` is
/// `seed`'s sibling: `/x/seed-hook` pins `/x/seed`).
fn pinned_bin(command: &str) -> Option<String> {
    let first = words(command).into_iter().next()?;
    let seed = if crate::commands::install::is_hook_bin(&first) {
        let dir = std::path::Path::new(&first).parent()?;
        if dir.as_os_str().is_empty() {
            return None;
        }
        dir.join("seed").display().to_string()
    } else {
        first
    };
    (seed != "seed").then_some(seed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn commands_seed_wrote_are_read_back() {
        let c = "'/opt/my seed/seed' hook --sequence 'it'\\''s' PreToolUse # seed-managed";
        assert_eq!(
            words(c),
            [
                "/opt/my seed/seed",
                "hook",
                "--sequence",
                "it's",
                "PreToolUse"
            ]
        );
        assert_eq!(sequence_of(c).as_deref(), Some("it's"));
        assert_eq!(pinned_bin(c).as_deref(), Some("/opt/my seed/seed"));
        assert_eq!(sequence_of("seed hook Stop # seed-managed"), None);
        assert_eq!(pinned_bin("seed hook Stop"), None);
        assert_eq!(pinned_bin("seed-hook Stop # seed-managed"), None);
        assert_eq!(
            pinned_bin("/opt/bin/seed-hook --sequence tdd Stop").as_deref(),
            Some("/opt/bin/seed")
        );
        assert_eq!(
            sequence_of("seed-hook --sequence tdd Stop").as_deref(),
            Some("tdd")
        );
        assert_eq!(words(""), Vec::<String>::new());
        assert_eq!(words("'unterminated"), ["unterminated"]);
    }

    #[test]
    fn identical_failures_are_one_group_with_one_fix() {
        let failed = |event: &str, matcher: Option<&str>| {
            json!({ "scope": "local", "event": event, "matcher": matcher, "ok": false,
                "command": format!("seed hook --sequence tdd {event} # seed-managed"),
                "problems": ["exit code 127, expected 0"], "stderr": "/bin/sh: 1: seed: not found" })
        };
        let mut checks: Vec<Value> = ["SessionStart", "Stop", "SessionEnd"]
            .iter()
            .map(|e| failed(e, None))
            .collect();
        checks.insert(1, failed("PreToolUse", Some("*")));
        checks.push(json!({ "scope": "local", "event": "PostToolUse", "ok": true }));
        let g = groups(&checks, "/opt/seed");
        assert_eq!(g.len(), 1, "{g:?}");
        assert_eq!(
            g[0].events,
            ["SessionStart", "PreToolUse [*]", "Stop", "SessionEnd"]
        );
        let fix = g[0].fix.as_deref().unwrap();
        assert!(
            fix.ends_with("`seed install --local --sequence tdd --bin /opt/seed`"),
            "{fix}"
        );
        // A missing `seed-hook`: installing again falls back to `seed hook`.
        let mut small = failed("Stop", None);
        small["command"] = json!("seed-hook --sequence tdd Stop # seed-managed");
        small["stderr"] = json!("/bin/sh: 1: seed-hook: not found");
        let g = groups(&[small], "/opt/seed");
        let fix = g[0].fix.as_deref().unwrap();
        assert!(fix.contains("no `seed-hook`"), "{fix}");
        assert!(
            fix.ends_with("`seed install --local --sequence tdd`"),
            "{fix}"
        );
        // Another scope, or another problem, is another group.
        let mut other = failed("Stop", None);
        other["scope"] = json!("user");
        checks.push(other);
        assert_eq!(groups(&checks, "/opt/seed").len(), 2);
    }

    #[test]
    fn a_mistyped_sequence_is_fixed_by_the_name_meant() {
        let problems = vec![
            "seed failed: sequence: compund_intelligence: no such sequence; did you mean `compound_intelligence`? (…)".to_string(),
        ];
        let cmd = "/x/seed hook --sequence compund_intelligence Stop # seed-managed";
        assert_eq!(
            fix_for(&problems, "", cmd, "local", "/x/seed").as_deref(),
            Some(
                "install the sequence meant: `seed install --local --sequence compound_intelligence --bin /x/seed`"
            )
        );
        let from_config = fix_for(
            &problems,
            "",
            "seed hook Stop # seed-managed",
            "project",
            "/x",
        );
        assert!(from_config.unwrap().contains("configured sequence"));
        assert_eq!(
            fix_for(&["exit code 2, expected 0".into()], "", cmd, "local", "/x"),
            None
        );
    }
}

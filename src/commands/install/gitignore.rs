//! `install --local` writes `.claude/settings.local.json`, which Claude Code means to stay
//! personal: in a git repository it goes into the project's `.gitignore`, once. Uninstall leaves
//! the line: the file stays personal whether seed's hooks are in it or not, and the line may as
//! well have been the user's own.

use std::path::Path;
use std::process::{Command, Stdio};

/// The line added, relative to the project's `.gitignore`.
pub const LINE: &str = ".claude/settings.local.json";

/// Lines that already keep the local settings out of git, when git itself cannot be asked.
const COVERING: &[&str] = &[
    ".claude/settings.local.json",
    "/.claude/settings.local.json",
    "**/.claude/settings.local.json",
    "settings.local.json",
    "*.local.json",
    ".claude",
    ".claude/",
    "/.claude",
    "/.claude/",
];

/// The `.gitignore` text with the line added, or `None` when nothing is to change: the project
/// is in no git repository, or the local settings are ignored already (by any rule git reads,
/// a global one included).
pub fn wanted(project: &Path, old: Option<&str>) -> Option<String> {
    if !in_git_repository(project) || ignored(project, old.unwrap_or("")) {
        return None;
    }
    let mut text = old.unwrap_or("").to_string();
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(LINE);
    text.push('\n');
    Some(text)
}

/// The project or a directory above it holds a `.git` (a directory, or a file in a worktree).
fn in_git_repository(project: &Path) -> bool {
    project.ancestors().any(|d| d.join(".git").exists())
}

/// Whether git ignores the local settings; without git, whether a line of the `.gitignore`
/// plainly does.
fn ignored(project: &Path, gitignore: &str) -> bool {
    let asked = Command::new("git")
        .args(["check-ignore", "-q", "--no-index", "--", LINE])
        .current_dir(project)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    match asked.map(|s| s.code()) {
        Ok(Some(0)) => true,
        Ok(Some(1)) => false,
        _ => gitignore
            .lines()
            .map(str::trim)
            .any(|l| COVERING.contains(&l)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_is_added_once_at_the_end() {
        let t = tempfile::tempdir().unwrap();
        std::fs::create_dir(t.path().join(".git")).unwrap();
        let p = t.path();
        assert_eq!(
            wanted(p, None).as_deref(),
            Some(".claude/settings.local.json\n")
        );
        assert_eq!(
            wanted(p, Some("target")).as_deref(),
            Some("target\n.claude/settings.local.json\n")
        );
        for covered in [
            "target\n.claude/settings.local.json\n",
            "/.claude/\n",
            "  *.local.json  ",
        ] {
            std::fs::write(p.join(".gitignore"), covered).unwrap();
            assert_eq!(wanted(p, Some(covered)), None, "{covered:?}");
        }
        // A comment or a negation is no ignore rule.
        for not_covered in [
            "# .claude/settings.local.json\n",
            "!.claude/settings.local.json\n",
        ] {
            std::fs::write(p.join(".gitignore"), not_covered).unwrap();
            assert!(wanted(p, Some(not_covered)).is_some(), "{not_covered:?}");
        }
    }

    #[test]
    fn outside_a_git_repository_nothing_is_written() {
        let t = tempfile::tempdir().unwrap();
        assert_eq!(wanted(t.path(), None), None);
    }
}

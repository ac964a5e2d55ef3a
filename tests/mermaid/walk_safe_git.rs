//! `safe_git`: commits after a passing test run, no throwing work away or force-pushing
//! unless the user asked for it, never skipping git's hooks.

use super::everyday::*;
use crate::support::mermaid::Walk;
use seed::engine::{Decision, VerdictKind};

/// The step of each region (`git.r1.tested` is `tested`).
fn at(w: &Walk) -> Vec<String> {
    w.at()
        .iter()
        .map(|k| k.rsplit('.').next().unwrap_or(k).to_string())
        .collect()
}

#[test]
fn a_commit_waits_for_the_tests_after_the_last_change() {
    let mut w = advise("safe_git");
    assert!(
        quiet(&w.gate(&bash("git commit -m 'start'"))),
        "nothing changed yet"
    );
    run(&mut w, &edit("/p/src/lib.rs"));
    let v = w.gate(&bash("git add -A && git commit -m 'cache'"));
    assert_eq!(v.kind, VerdictKind::Deny);
    assert!(
        warned(&v)
            .contains("Run the tests after the last change and see them pass before committing.")
    );
    run(&mut w, &failed("cargo test"));
    assert_eq!(w.gate(&bash("git commit -m x")).kind, VerdictKind::Deny);
    run(&mut w, &ran("cargo test", "test result: ok. 9 passed"));
    assert!(quiet(&w.gate(&bash("git commit -m 'cache'"))));
    // Another change: test again.
    run(&mut w, &write("/p/src/cache.rs"));
    assert_eq!(w.gate(&bash("git commit -m x")).kind, VerdictKind::Deny);
}

#[test]
fn work_is_not_thrown_away_unless_the_tree_is_clean_or_the_user_asks() {
    let mut w = advise("safe_git");
    // Not checked yet: the tree may hold the user's uncommitted work.
    let hard = bash("git reset --hard HEAD~1");
    assert!(warned(&w.gate(&hard)).contains("throws away uncommitted work"));
    for cmd in [
        "git checkout -- src/lib.rs",
        "git restore .",
        "git clean -fd",
    ] {
        assert_eq!(w.gate(&bash(cmd)).kind, VerdictKind::Deny, "{cmd}");
    }
    // `git status` says it is dirty, then clean.
    run(
        &mut w,
        &ran(
            "git status",
            "On branch main\nChanges not staged for commit:\n\tmodified:   src/lib.rs",
        ),
    );
    assert_eq!(at(&w), ["tested", "tree_dirty"]);
    assert_eq!(w.gate(&hard).kind, VerdictKind::Deny);
    run(
        &mut w,
        &ran(
            "git status",
            "On branch main\nnothing to commit, working tree clean",
        ),
    );
    assert_eq!(at(&w), ["tested", "tree_clean"]);
    assert!(quiet(&w.gate(&hard)));
    // `--porcelain` prints nothing for a clean tree.
    let mut p = advise("safe_git");
    run(&mut p, &ran("git status --porcelain", ""));
    assert_eq!(at(&p), ["tested", "tree_clean"]);
    // An edit dirties it again; a commit leaves it unknown.
    run(&mut w, &edit("/p/src/lib.rs"));
    assert_eq!(at(&w), ["untested", "tree_dirty"]);
    run(&mut w, &ran("cargo test", "ok"));
    run(&mut w, &ran("git commit -am wip", "[main 1a2b3c4] wip"));
    assert_eq!(at(&w), ["tested", "tree_unchecked"]);
    assert_eq!(w.gate(&hard).kind, VerdictKind::Deny);
    // The user asks for it: allowed until the next prompt.
    w.advance(&prompt(
        "Please reset --hard to origin/main, I don't need those changes",
    ));
    assert!(quiet(&w.gate(&hard)));
    w.advance(&prompt("thanks, now run the tests"));
    assert_eq!(w.gate(&hard).kind, VerdictKind::Deny);
}

#[test]
fn force_pushing_needs_the_users_ask_and_hooks_are_never_skipped() {
    let mut w = advise("safe_git");
    for cmd in [
        "git push --force origin main",
        "git push -f",
        "git push --force-with-lease",
        "git push origin +main",
    ] {
        assert!(
            warned(&w.gate(&bash(cmd))).contains("rewrites shared history"),
            "{cmd}"
        );
    }
    assert!(quiet(&w.gate(&bash("git push origin feature"))));
    w.advance(&prompt("force push the branch please"));
    assert!(quiet(&w.gate(&bash("git push --force origin feature"))));
    // Skipping the hooks is refused even when asked.
    let v = w.gate(&bash("git commit --no-verify -m x"));
    assert!(warned(&v).contains("Skipping git's hooks is not allowed"));
}

#[test]
fn enforce_refuses() {
    let mut w = enforce("safe_git");
    run(&mut w, &edit("/p/src/lib.rs"));
    assert!(refused(&w.gate(&bash("git commit -m x"))).contains("Run the tests"));
    assert_eq!(w.gate(&bash("git push -f")).decision, Decision::Deny);
    assert_eq!(w.gate(&bash("git status")).decision, Decision::Allow);
}

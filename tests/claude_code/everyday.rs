//! The everyday sequences under the real Claude Code, set up as a newcomer does: `seed init
//! --sequence NAME` in a fresh project (the copy it makes is what the hooks run), then the
//! agent's calls. Where a scenario wants refusals it changes the copy's one `enforcement` line;
//! the test command is the project's own script, added to the copy's `test_commands`.

use std::path::Path;

use serde_json::json;

use crate::harness::{Scenario, Turn, replay, seed_in};

/// The project's tests: they pass once `src/cache.rs` exists.
const RUN_TESTS: &str = "#!/bin/sh\nif [ -f src/cache.rs ]; then echo 'test result: ok. 1 passed'; else echo 'test cache::hit ... FAILED'; exit 1; fi\n";

/// `seed init --sequence name` in the scenario's project, its copy enforced when asked, and
/// `sh run-tests.sh` one of its test commands.
fn init(s: Scenario, name: &str, enforce: bool) -> Scenario {
    let project = s.project();
    let root = project.parent().expect("the sandbox").to_path_buf();
    let out = seed_in(&root, &project)
        .args(["init", "--sequence", name])
        .output()
        .expect("seed init runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.contains("doctor: all good"),
        "seed init: {text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let manifest = project.join(format!(".seed/sequences/{name}.toml"));
    let mut copy = std::fs::read_to_string(&manifest).expect("init copied the sequence");
    if enforce {
        copy = copy.replace("enforcement = \"advise\"", "enforcement = \"enforce\"");
    }
    copy = copy.replace(
        "test_commands = [\"*cargo test*\"",
        "test_commands = [\"*run-tests*\", \"*cargo test*\"",
    );
    std::fs::write(&manifest, copy).expect("the copy, edited");
    s.file("run-tests.sh", RUN_TESTS)
}

fn gates(run: &crate::harness::Run) -> Vec<String> {
    run.records_of("PreToolUse")
        .iter()
        .map(|r| {
            format!(
                "{} {}",
                r["event"]["name"].as_str().unwrap_or_default(),
                r["verdict"]["decision"].as_str().unwrap_or_default()
            )
        })
        .collect()
}

fn stops(run: &crate::harness::Run) -> Vec<String> {
    run.records_of("Stop")
        .iter()
        .map(|r| {
            r["verdict"]["decision"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        })
        .collect()
}

fn path(p: &Path, rel: &str) -> String {
    p.join(rel).display().to_string()
}

#[test]
fn tdd_refuses_the_code_before_a_failing_run_then_goes_red_and_green() {
    let Some(s) = Scenario::new() else { return };
    let p = s.project();
    let run = init(s, "tdd", true)
        .prompt("Add a cache.")
        .model([
            Turn::tool("Write", json!({"file_path": path(&p, "src/cache.rs"), "content": "pub fn hit() {}\n"})),
            Turn::tool("Write", json!({"file_path": path(&p, "tests/cache_test.sh"), "content": "test -f src/cache.rs\n"})),
            Turn::tool("Bash", json!({"command": "sh run-tests.sh"})),
            Turn::tool("Write", json!({"file_path": path(&p, "src/cache.rs"), "content": "pub fn hit() {}\n"})),
            Turn::tool("Bash", json!({"command": "sh run-tests.sh"})),
            Turn::text("Done: the cache is in and its test passes."),
        ])
        .run();
    let refused = run.result(0);
    assert!(refused.is_error, "{refused:?}");
    assert!(refused.text.contains("Test first: write or change a test for this change, run it and watch it fail; then change the code."), "{refused:?}");
    assert!(
        run.result(2).is_error,
        "the first run fails: {:?}",
        run.result(2)
    );
    assert_eq!(run.result(4).text, "test result: ok. 1 passed");
    assert_eq!(
        gates(&run),
        [
            "Write deny",
            "Write allow",
            "Bash allow",
            "Write allow",
            "Bash allow"
        ]
    );
    // Green: the turn ends, and nothing was held or warned about.
    assert_eq!(stops(&run), ["allow"]);
    assert_eq!(run.records_of("Stop")[0]["verdict"]["warning"], json!(null));
    assert!(run.sent_texts_with("Stop hook feedback:").is_empty());
    replay::agrees_with_live(&run, "tdd");
}

#[test]
fn tdd_holds_a_turn_that_ends_red() {
    let Some(s) = Scenario::new() else { return };
    let p = s.project();
    let run = init(s, "tdd", true)
        .prompt("Add a cache.")
        .model([
            Turn::tool("Write", json!({"file_path": path(&p, "tests/cache_test.sh"), "content": "test -f src/cache.rs\n"})),
            Turn::tool("Bash", json!({"command": "sh run-tests.sh"})),
            Turn::text("The test fails; I will stop here."),
            Turn::tool("Write", json!({"file_path": path(&p, "src/cache.rs"), "content": "pub fn hit() {}\n"})),
            Turn::tool("Bash", json!({"command": "sh run-tests.sh"})),
            Turn::text("Done."),
        ])
        .run();
    let held = run.sent_texts_with("Stop hook feedback:");
    assert_eq!(held.len(), 1, "{:#?}", run.sent_texts());
    assert!(
        held[0].contains("seed [tdd]: \"tdd\" is at \"red\", where the turn does not end yet. Run the tests and make them pass before ending the turn."),
        "{held:#?}"
    );
    assert_eq!(stops(&run), ["block", "allow"]);
}

/// Tests whose runner reports a failure in its output and still exits 0.
const RUN_TESTS_EXIT_0: &str = "#!/bin/sh\nif [ -f src/cache.rs ]; then echo 'test result: ok. 1 passed'; else echo 'test cache::hit ... FAIL'; fi\n";

#[test]
fn tdd_reads_a_run_that_says_fail_as_red_and_its_transcript_replays_so() {
    let Some(s) = Scenario::new() else { return };
    let p = s.project();
    let run = init(s, "tdd", true)
        .file("run-tests.sh", RUN_TESTS_EXIT_0)
        .prompt("Add a cache.")
        .model([
            Turn::tool("Write", json!({"file_path": path(&p, "tests/cache_test.sh"), "content": "test -f src/cache.rs\n"})),
            Turn::tool("Bash", json!({"command": "sh run-tests.sh"})),
            Turn::tool("Write", json!({"file_path": path(&p, "src/cache.rs"), "content": "pub fn hit() {}\n"})),
            Turn::tool("Bash", json!({"command": "sh run-tests.sh"})),
            Turn::text("Done."),
        ])
        .run();
    // The first run succeeded as a command, and its output says FAIL: red, so the code may
    // change.
    let first = run.result(1);
    assert!(!first.is_error && first.text.contains("FAIL"), "{first:?}");
    assert_eq!(
        gates(&run),
        ["Write allow", "Bash allow", "Write allow", "Bash allow"]
    );
    assert_eq!(stops(&run), ["allow"]);
    // The replay reads each run's result from the transcript as the hook read it live.
    replay::agrees_with_live(&run, "tdd");
}

#[test]
fn plan_then_build_waits_for_the_users_go_ahead() {
    let Some(s) = Scenario::new() else { return };
    let p = s.project();
    let lib = path(&p, "src/lib.rs");
    let run = init(s, "plan_then_build", true)
        .file("src/lib.rs", "pub fn load() {}\n")
        .prompt("Add a cache to the loader.")
        .prompt("Looks good, go ahead.")
        .model([
            Turn::tool("Read", json!({"file_path": lib})),
            Turn::tool("Edit", json!({"file_path": lib, "old_string": "pub fn load() {}", "new_string": "pub fn load() { cached() }"})),
            Turn::text("Plan: wrap load() in a cache keyed by path. Shall I go ahead?"),
            Turn::tool("Edit", json!({"file_path": lib, "old_string": "pub fn load() {}", "new_string": "pub fn load() { cached() }"})),
            Turn::text("Done."),
        ])
        .run();
    let refused = run.result(1);
    assert!(refused.is_error, "{refused:?}");
    assert!(
        refused
            .text
            .contains("No changes before the plan is approved"),
        "{refused:?}"
    );
    assert!(
        !run.result(3).is_error,
        "after the go-ahead: {:?}",
        run.result(3)
    );
    assert_eq!(gates(&run), ["Read allow", "Edit deny", "Edit allow"]);
    assert_eq!(
        std::fs::read_to_string(p.join("src/lib.rs")).unwrap(),
        "pub fn load() { cached() }\n"
    );
    replay::agrees_with_live(&run, "plan_then_build");
}

#[test]
fn safe_git_commits_after_the_tests_and_force_pushes_only_when_asked() {
    let Some(s) = Scenario::new() else { return };
    let p = s.project();
    let home = p.parent().unwrap().join("home");
    std::fs::write(
        home.join(".gitconfig"),
        "[user]\n\tname = t\n\temail = t@example.invalid\n",
    )
    .unwrap();
    let git = |args: &[&str]| {
        let ok = std::process::Command::new("git")
            .args(args)
            .current_dir(&p)
            .env("HOME", &home)
            .status()
            .expect("git runs")
            .success();
        assert!(ok, "git {args:?}");
    };
    std::fs::create_dir_all(p.join("src")).unwrap();
    std::fs::write(p.join("src/cache.rs"), "pub fn hit() {}\n").unwrap();
    git(&["init", "-q"]);
    git(&["add", "-A"]);
    git(&["commit", "-qm", "start"]);
    let file = path(&p, "src/cache.rs");
    let run = init(s, "safe_git", true)
        .prompt("Make hit() public API and commit it.")
        .prompt("Force push it to origin, please.")
        .model([
            Turn::tool("Edit", json!({"file_path": file, "old_string": "pub fn hit() {}", "new_string": "pub fn hit() -> bool { true }"})),
            Turn::tool("Bash", json!({"command": "git commit -qam 'hit returns true'"})),
            Turn::tool("Bash", json!({"command": "sh run-tests.sh"})),
            Turn::tool("Bash", json!({"command": "git commit -qam 'hit returns true'"})),
            Turn::tool("Bash", json!({"command": "git push --force origin main"})),
            Turn::text("Committed; pushing needs your go-ahead."),
            Turn::tool("Bash", json!({"command": "git push --force origin main"})),
            Turn::text("There is no origin to push to."),
        ])
        .run();
    assert!(
        run.result(1)
            .text
            .contains("Run the tests after the last change and see them pass before committing."),
        "{:?}",
        run.result(1)
    );
    assert!(!run.result(3).is_error, "{:?}", run.result(3));
    assert!(
        run.result(4)
            .text
            .contains("Force-pushing rewrites shared history"),
        "{:?}",
        run.result(4)
    );
    assert_eq!(
        gates(&run),
        [
            "Edit allow",
            "Bash deny",
            "Bash allow",
            "Bash allow",
            "Bash deny",
            "Bash allow"
        ]
    );
    replay::agrees_with_live(&run, "safe_git");
}

#[test]
fn research_first_tells_the_agent_to_look_before_it_writes() {
    let Some(s) = Scenario::new() else { return };
    let p = s.project();
    let run = init(s, "research_first", false)
        .file("src/lib.rs", "pub fn load() {}\n")
        .prompt("Add a cache module.")
        .model([
            Turn::tool(
                "Write",
                json!({"file_path": path(&p, "src/cache.rs"), "content": "pub fn hit() {}\n"}),
            ),
            Turn::tool("Glob", json!({"pattern": "*.rs", "path": path(&p, "src")})),
            Turn::tool(
                "Write",
                json!({"file_path": path(&p, "src/store.rs"), "content": "pub fn put() {}\n"}),
            ),
            Turn::text("Done."),
        ])
        .run();
    // advise, as shipped: both writes run, the first with the warning beside its result.
    assert!(!run.result(0).is_error && !run.result(2).is_error);
    let warned = run.sent_texts_with("PreToolUse:Write hook additional context:");
    assert_eq!(warned.len(), 1, "{:#?}", run.sent_texts());
    assert!(
        warned[0].contains("Read the file first, or search where it goes"),
        "{warned:#?}"
    );
    assert_eq!(gates(&run), ["Write allow", "Glob allow", "Write allow"]);
    replay::agrees_with_live(&run, "research_first");
}

#[test]
fn verify_before_done_keeps_the_agent_working_until_a_run_passes() {
    let Some(s) = Scenario::new() else { return };
    let p = s.project();
    let run = init(s, "verify_before_done", true)
        .prompt("Add a cache.")
        .model([
            Turn::tool(
                "Write",
                json!({"file_path": path(&p, "src/cache.rs"), "content": "pub fn hit() {}\n"}),
            ),
            Turn::text("Done."),
            Turn::tool("Bash", json!({"command": "sh run-tests.sh"})),
            Turn::text("Done, and the tests pass."),
        ])
        .run();
    let held = run.sent_texts_with("Stop hook feedback:");
    assert_eq!(held.len(), 1, "{:#?}", run.sent_texts());
    assert!(
        held[0].contains("Run the tests and see them pass before ending the turn."),
        "{held:#?}"
    );
    assert_eq!(stops(&run), ["block", "allow"]);
    replay::agrees_with_live(&run, "verify_before_done");
}

/// The README's first screen as written: `seed init --sequence tdd --enforcement enforce`, then
/// an edit of the code before any test ran is refused with the text the README shows, and the
/// dashboard's session is that one.
#[test]
fn the_readmes_first_screen_refuses_the_code_as_it_says() {
    let Some(s) = Scenario::new() else { return };
    let project = s.project();
    let root = project.parent().expect("the sandbox").to_path_buf();
    let out = seed_in(&root, &project)
        .args(["init", "--sequence", "tdd", "--enforcement", "enforce"])
        .output()
        .expect("seed init runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success()
            && text.ends_with("open the dashboard beside Claude Code:  seed tui\n"),
        "seed init: {text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lib = path(&project, "src/lib.rs");
    let run = s
        .file("src/lib.rs", "pub fn get() -> u32 { 1 }\n")
        .prompt("Add a cache to src/lib.rs.")
        .model([
            Turn::tool("Read", json!({"file_path": lib})),
            Turn::tool(
                "Edit",
                json!({"file_path": lib, "old_string": "1", "new_string": "2"}),
            ),
            Turn::text("I will write a test first."),
        ])
        .run();
    let refused = run.result(1);
    assert!(refused.is_error, "{refused:?}");
    assert!(
        refused.text.ends_with(
            "seed [tdd]: Edit is not allowed now — \"test first\" denies Edit. Test first: write or \
             change a test for this change, run it and watch it fail; then change the code. First \
             call Bash(command=<one of test_commands>); after that, Edit is allowed."
        ),
        "{refused:?}"
    );
    assert_eq!(gates(&run), ["Read allow", "Edit deny"]);
    let (code, status, _) = run.seed(&["status"]);
    assert_eq!(code, 0);
    assert!(status.contains("tdd  (mermaid, enforce)"), "{status}");
}

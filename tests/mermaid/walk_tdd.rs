//! `tdd`: a test run that fails before the implementation changes, a run that passes before the
//! turn ends, both read from the test command's own result (its exit code or its output).

use super::everyday::*;
use seed::engine::{Decision, VerdictKind};

#[test]
fn the_implementation_waits_for_a_failing_test_run() {
    let mut w = advise("tdd");
    assert_eq!(w.at(), ["test_first"]);
    // Looking around and running anything is fine.
    assert!(quiet(&run(&mut w, &read("/p/src/cache.rs"))));
    assert!(quiet(&run(&mut w, &ran("ls src", "cache.rs\nlib.rs"))));
    // Changing the code first is not: advise lets it through and says why.
    let v = w.gate(&edit("/p/src/cache.rs"));
    assert_eq!(v.kind, VerdictKind::Deny);
    assert!(
        warned(&v).contains("Test first: write or change a test for this change, run it and watch it fail; then change the code."),
        "{v:?}"
    );
    // The way there is one failing run, not a whole cycle: in red every call is free again.
    assert!(
        warned(&v).ends_with(
            "First call Bash(command=<one of test_commands>); after that, Edit is allowed."
        ),
        "{v:?}"
    );
    // Tests and documentation may change first.
    assert!(quiet(&run(&mut w, &edit("/p/tests/cache.rs"))));
    assert!(quiet(&run(&mut w, &write("/p/src/cache_test.go"))));
    assert!(quiet(&run(&mut w, &edit("/p/README.md"))));
    assert_eq!(w.at(), ["test_first"]);
    // A run that passes is not the red step.
    run(
        &mut w,
        &ran("cargo test", "test result: ok. 3 passed; 0 failed"),
    );
    assert_eq!(w.at(), ["test_first"]);
    // The run fails (exit code 101): red, and the implementation may change.
    let v = run(&mut w, &failed("cargo test"));
    assert_eq!(v.kind, VerdictKind::Advance);
    assert_eq!(w.at(), ["red"]);
    assert!(quiet(&run(&mut w, &edit("/p/src/cache.rs"))));
    // It passes: green.
    run(
        &mut w,
        &ran("cargo test", "test result: ok. 4 passed; 0 failed"),
    );
    assert_eq!(w.at(), ["green"]);
}

#[test]
fn a_piped_run_is_read_from_its_output() {
    // `cargo test | tail` exits 0 whatever the tests did: the output says FAILED.
    let mut w = advise("tdd");
    run(
        &mut w,
        &ran(
            "cargo test 2>&1 | tail -n 5",
            "test cache::hit ... FAILED\ntest result: FAILED. 2 passed; 1 failed",
        ),
    );
    assert_eq!(w.at(), ["red"]);
    run(
        &mut w,
        &ran("cargo test 2>&1 | tail -n 5", "test result: ok. 3 passed"),
    );
    assert_eq!(w.at(), ["green"]);
    // pytest, jest and go say it their way.
    for (cmd, out) in [
        (
            "pytest -q",
            "FAILED tests/test_cache.py::test_hit - assert 1 == 2\n1 failed, 2 passed",
        ),
        (
            "npx jest 2>&1",
            "FAIL src/cache.test.js\nTests: 1 failed, 2 passed",
        ),
        ("go test ./... | cat", "--- FAIL: TestHit (0.00s)\nFAIL"),
    ] {
        let mut w = advise("tdd");
        run(&mut w, &ran(cmd, out));
        assert_eq!(w.at(), ["red"], "{cmd}");
    }
    // A command that is not a test run moves nothing, whatever it prints.
    let mut w = advise("tdd");
    run(&mut w, &ran("cat log.txt", "FAILED"));
    run(&mut w, &failed("cargo build"));
    assert_eq!(w.at(), ["test_first"]);
}

#[test]
fn green_then_a_change_wants_another_passing_run_before_the_turn_ends() {
    let mut w = advise("tdd");
    run(&mut w, &failed("pytest"));
    // Red: the turn should not end on failing tests.
    let v = stop(&mut w, false);
    assert_eq!(
        warned(&v),
        "seed: \"tdd\" is at \"red\", where the turn does not end yet. Run the tests and make them pass before ending the turn."
    );
    run(&mut w, &ran("pytest", "3 passed in 0.02s"));
    assert!(quiet(&stop(&mut w, false)), "green: the turn may end");
    // A refactoring step after green: run the tests again before ending.
    run(&mut w, &edit("/p/src/cache.py"));
    assert_eq!(w.at(), ["refactoring"]);
    assert!(warned(&stop(&mut w, false)).contains("make them pass"));
    run(&mut w, &ran("pytest", "3 passed"));
    assert_eq!(w.at(), ["green"]);
    // A documentation change keeps green.
    run(&mut w, &edit("/p/docs/cache.md"));
    assert_eq!(w.at(), ["green"]);
    // The next test starts the next cycle: the implementation waits for it to fail.
    run(&mut w, &edit("/p/tests/test_cache.py"));
    assert_eq!(w.at(), ["test_first"]);
    assert_eq!(w.gate(&edit("/p/src/cache.py")).kind, VerdictKind::Deny);
}

#[test]
fn enforce_refuses_the_early_change_and_holds_the_turn() {
    let mut w = enforce("tdd");
    let v = w.gate(&edit("/p/src/cache.rs"));
    assert!(refused(&v).contains("Test first"), "{}", v.reason);
    run(&mut w, &failed("cargo test"));
    assert_eq!(w.gate(&edit("/p/src/cache.rs")).decision, Decision::Allow);
    // The turn is held while red, twice per prompt (Claude Code says `stop_hook_active` after
    // the first: it changes nothing), then it ends.
    let v = stop(&mut w, false);
    assert!(refused(&v).contains("make them pass"));
    assert_eq!(stop(&mut w, true).decision, Decision::Block);
    assert_eq!(stop(&mut w, true).decision, Decision::Allow, "max_blocks");
    assert_eq!(stop(&mut w, false).decision, Decision::Allow);
}

//! `verify_before_done`: a change keeps the turn from ending until a test run has passed.

use super::everyday::*;
use seed::engine::Decision;

#[test]
fn a_change_is_done_once_a_test_run_passes() {
    let mut w = advise("verify_before_done");
    assert!(quiet(&stop(&mut w, false)), "nothing changed");
    assert!(
        quiet(&run(&mut w, &edit("/p/src/lib.rs"))),
        "changes are free"
    );
    assert_eq!(w.at(), ["changed"]);
    assert_eq!(
        warned(&stop(&mut w, false)),
        "seed: \"verify_before_done\" is at \"changed\", where the turn does not end yet. Run the tests and see them pass before ending the turn."
    );
    // A failing run, and a run whose output says FAIL, are not a pass.
    run(&mut w, &failed("npm test"));
    run(&mut w, &ran("npm test 2>&1 | tail", "FAIL src/a.test.js"));
    assert_eq!(w.at(), ["changed"]);
    run(&mut w, &ran("npm test", "Tests: 4 passed, 4 total"));
    assert_eq!(w.at(), ["verified"]);
    assert!(quiet(&stop(&mut w, false)));
    // Documentation needs no run.
    run(&mut w, &write("/p/CHANGELOG.md"));
    assert_eq!(w.at(), ["verified"]);
}

#[test]
fn enforce_keeps_the_agent_working() {
    let mut w = enforce("verify_before_done");
    run(&mut w, &edit("/p/src/lib.rs"));
    assert!(refused(&stop(&mut w, false)).contains("see them pass"));
    run(&mut w, &ran("go test ./...", "ok  \texample.com/p\t0.01s"));
    assert_eq!(stop(&mut w, false).decision, Decision::Allow);
}

//! `research_first`: a file is read, or turned up by a search, before its first change; what
//! was seen is remembered per file.

use super::everyday::*;
use seed::engine::{Decision, VerdictKind};
use serde_json::json;

#[test]
fn each_file_is_read_before_its_first_change() {
    let mut w = advise("research_first");
    let v = w.gate(&edit("/p/src/lib.rs"));
    assert_eq!(v.kind, VerdictKind::Deny);
    assert!(warned(&v).contains("Read the file first, or search where it goes"));
    run(&mut w, &read("/p/src/lib.rs"));
    assert!(quiet(&w.gate(&edit("/p/src/lib.rs"))));
    // Per file: another one is still unseen.
    assert_eq!(w.gate(&edit("/p/src/main.rs")).kind, VerdictKind::Deny);
    // Once changed, a file is known.
    run(&mut w, &edit("/p/src/lib.rs"));
    assert!(quiet(&w.gate(&edit("/p/src/lib.rs"))));
}

#[test]
fn a_search_counts_for_the_files_it_found_and_the_folder_it_searched() {
    let mut w = advise("research_first");
    run(
        &mut w,
        &grep(
            json!({"pattern": "fn load", "output_mode": "files_with_matches"}),
            json!({"mode": "files_with_matches", "filenames": ["/p/src/loader.rs", "/p/src/cache.rs"], "numFiles": 2}),
        ),
    );
    assert!(quiet(&w.gate(&edit("/p/src/loader.rs"))));
    assert!(quiet(&w.gate(&edit("/p/src/cache.rs"))));
    assert_eq!(w.gate(&edit("/p/src/main.rs")).kind, VerdictKind::Deny);
    // A search of a folder (relative, as the agent may pass it) covers what is under it,
    // a new file included.
    run(
        &mut w,
        &grep(
            json!({"pattern": "TODO", "path": "tests", "output_mode": "content"}),
            json!({"mode": "content", "filenames": [], "content": "tests/a.rs:3:// TODO"}),
        ),
    );
    assert!(quiet(&w.gate(&write("/p/tests/new_case.rs"))));
    assert!(quiet(&w.gate(&edit("/p/tests/deep/a.rs"))));
    assert_eq!(
        w.gate(&write("/p/testsuite/x.rs")).kind,
        VerdictKind::Deny,
        "a folder covers only what is under it"
    );
}

#[test]
fn enforce_refuses_a_blind_change() {
    let mut w = enforce("research_first");
    assert!(refused(&w.gate(&write("/p/src/new.rs"))).contains("Read the file first"));
    assert_eq!(w.gate(&bash("ls src")).decision, Decision::Allow);
}

#[test]
fn the_memory_keeps_the_newest_files() {
    let mut w = advise("research_first");
    for i in 0..(seed::engine::guard::MAX_REMEMBERED + 10) {
        w.advance(&read(&format!("/p/f{i}.rs")));
    }
    let seen = w.snap.vars["seen"].as_array().expect("a list").len();
    assert_eq!(seen, seed::engine::guard::MAX_REMEMBERED);
    assert_eq!(
        w.gate(&edit("/p/f0.rs")).kind,
        VerdictKind::Deny,
        "the oldest are gone"
    );
    assert!(quiet(&w.gate(&edit("/p/f4105.rs"))));
}

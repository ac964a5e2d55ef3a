//! Which session the dashboard shows, and that it says so: without `--session` only a session
//! of this directory's project (else it waits, naming the newest session elsewhere); a session
//! of another project (named, or picked) carries a notice; the header names the session's
//! project and when it started.

use std::path::Path;

use seed::store::{paths, sessions};
use seed::tui::start::{self, Options};

fn write(state: &Path, id: &str, cwd: &str) {
    let d = paths::session_dir(state, id);
    std::fs::create_dir_all(&d).unwrap();
    let meta = sessions::SessionMeta {
        v: 1,
        id: id.into(),
        cwd: Some(cwd.into()),
        started: "2026-01-15T14:02:00Z".into(),
        ..Default::default()
    };
    sessions::save_meta(&d.join("session.json"), &meta).unwrap();
    std::fs::write(d.join("log.jsonl"), "").unwrap();
    // Distinct modification times, whatever the file system's resolution.
    std::thread::sleep(std::time::Duration::from_millis(20));
}

fn options(state: &Path, project: &str, session: Option<&str>) -> Options {
    Options {
        state: state.to_path_buf(),
        project: Some(project.into()),
        session: session.map(String::from),
        ..Options::default()
    }
}

#[test]
fn the_dashboard_follows_this_projects_session_and_says_when_another_is_shown() {
    let t = tempfile::tempdir().unwrap();
    let s = t.path();
    write(s, "mine", "/home/dev/projects/app");
    write(s, "theirs", "/home/dev/projects/other");

    let here = options(s, "/home/dev/projects/app", None);
    let chosen = start::choose(&here, None).unwrap().unwrap();
    assert_eq!(chosen.id, "mine", "the newer session is another project's");
    let target = start::target(&here, Some(&chosen));
    assert_eq!(
        target.info.project.as_deref(),
        Some("/home/dev/projects/app")
    );
    assert_eq!(
        target.info.started,
        seed::tui::model::parse_ts("2026-01-15T14:02:00Z")
    );
    assert!(target.notices.is_empty(), "{:?}", target.notices);

    // Named from elsewhere: shown, and said to be elsewhere.
    let named = options(s, "/home/dev/projects/app", Some("theirs"));
    assert!(start::check(&named).is_ok());
    let listed = start::choose(&named, None).unwrap().unwrap();
    let target = start::target(&named, Some(&listed));
    assert_eq!(
        target.notices,
        [
            "this session ran in /home/dev/projects/other, not in this directory (/home/dev/projects/app)"
        ]
    );

    // A project no session ran in waits for one, and says which one there is.
    let new = options(s, "/home/dev/projects/new", None);
    assert!(start::choose(&new, None).unwrap().is_none());
    assert_eq!(
        start::waiting_notice(&new).as_deref(),
        Some(
            "waiting for a session in /home/dev/projects/new; the newest, theirs, ran in /home/dev/projects/other (s: sessions)"
        )
    );

    // A session that does not exist is refused before the terminal is taken.
    let e = start::check(&options(s, "/home/dev/projects/app", Some("nope"))).unwrap_err();
    assert!(e.starts_with("no session `nope` in "), "{e}");
}

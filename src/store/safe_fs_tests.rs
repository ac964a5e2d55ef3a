use super::*;
use std::io::Write;

/// Make `link` a symlink to `target` owned by another user (`nobody`). Only root can; anyone
/// else gets `false` and the test says why it skipped.
#[cfg(unix)]
pub(crate) fn foreign_symlink(target: &Path, link: &Path) -> bool {
    std::os::unix::fs::symlink(target, link).unwrap();
    match std::os::unix::fs::lchown(link, Some(65534), Some(65534)) {
        Ok(()) => true,
        Err(e) => {
            eprintln!("skipped: cannot give a symlink to another user ({e}); run as root to test");
            false
        }
    }
}

#[cfg(unix)]
fn mode(p: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).unwrap().permissions().mode() & 0o777
}

#[cfg(unix)]
#[test]
fn modes_and_atomic_writes() {
    let t = tempfile::tempdir().unwrap();
    let state = prepare_state(&t.path().join("state")).unwrap();
    let d = state.join("a/b");
    ensure_dir_in(&state, &d).unwrap();
    assert_eq!(mode(&state), 0o700);
    assert_eq!(mode(&state.join("a")), 0o700);
    assert_eq!(mode(&d), 0o700);
    let f = d.join("x.json");
    write_atomic(&f, b"{}").unwrap();
    write_atomic(&f, b"{\"a\":1}").unwrap();
    assert_eq!(std::fs::read(&f).unwrap(), b"{\"a\":1}");
    assert_eq!(mode(&f), 0o600);
    assert_eq!(
        std::fs::read_dir(&d).unwrap().count(),
        1,
        "no temp file left"
    );
    assert!(read_bounded(&f, 3).is_err());
    assert!(ensure_dir_in(&state, &t.path().join("elsewhere")).is_err());
    assert!(ensure_dir_in(&state, &state.join("a/../../x")).is_err());
}

#[cfg(unix)]
#[test]
fn a_loose_state_dir_of_ours_is_made_private() {
    use std::os::unix::fs::PermissionsExt;
    let t = tempfile::tempdir().unwrap();
    let state = t.path().join("state");
    std::fs::create_dir(&state).unwrap();
    std::fs::set_permissions(&state, std::fs::Permissions::from_mode(0o755)).unwrap();
    prepare_state(&state).unwrap();
    assert_eq!(mode(&state), 0o700);
    // A regular file is not a state directory.
    let file = t.path().join("file");
    std::fs::write(&file, "x").unwrap();
    assert!(prepare_state(&file).is_err());
}

#[cfg(unix)]
#[test]
fn our_own_symlinks_are_followed() {
    let t = tempfile::tempdir().unwrap();
    let real = t.path().join("real");
    std::fs::create_dir(&real).unwrap();
    let link = t.path().join("link");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let state = prepare_state(&link).unwrap();
    assert_eq!(state, std::fs::canonicalize(&real).unwrap());
    // An inner directory and a file that are links of ours.
    let elsewhere = t.path().join("sessions-elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, state.join("sessions")).unwrap();
    ensure_dir_in(&state, &state.join("sessions/s1")).unwrap();
    assert!(elsewhere.join("s1").is_dir());
    let target = t.path().join("target.log");
    std::os::unix::fs::symlink(&target, state.join("sessions/s1/log.jsonl")).unwrap();
    open_append(&state.join("sessions/s1/log.jsonl"))
        .unwrap()
        .write_all(b"x\n")
        .unwrap();
    assert_eq!(std::fs::read(&target).unwrap(), b"x\n");
    assert_eq!(
        read_bounded(&state.join("sessions/s1/log.jsonl"), 10).unwrap(),
        b"x\n"
    );
}

/// Someone else's symlink is refused wherever it is: the state dir itself, a directory the
/// store enters, or a file it opens; nothing is written through it.
#[cfg(unix)]
#[test]
fn foreign_symlinks_are_refused_everywhere() {
    let t = tempfile::tempdir().unwrap();
    let victim = t.path().join("victim");
    std::fs::create_dir(&victim).unwrap();
    let link = t.path().join("link");
    if !foreign_symlink(&victim, &link) {
        return;
    }
    let e = prepare_state(&link).unwrap_err();
    assert!(e.to_string().contains("owned by another user"), "{e}");

    let state = prepare_state(&t.path().join("state")).unwrap();
    for inner in ["sessions", "cache"] {
        let l = state.join(inner);
        assert!(foreign_symlink(&victim, &l));
        let e = ensure_dir_in(&state, &l.join("x")).unwrap_err();
        assert!(e.to_string().contains("refusing to follow"), "{inner}: {e}");
        std::fs::remove_file(&l).unwrap();
    }
    let file = state.join("errors.jsonl");
    let victim_file = victim.join("f");
    std::fs::write(&victim_file, "mine\n").unwrap();
    assert!(foreign_symlink(&victim_file, &file));
    assert!(open_append(&file).is_err());
    assert!(read_bounded(&file, 100).is_err());
    assert!(write_atomic(&file, b"x").is_err());
    assert_eq!(std::fs::read(&victim_file).unwrap(), b"mine\n");
    assert_eq!(std::fs::read_dir(&victim).unwrap().count(), 1);
}

/// A state directory that belongs to someone else is not used.
#[cfg(unix)]
#[test]
fn a_state_dir_owned_by_another_user_is_refused() {
    let t = tempfile::tempdir().unwrap();
    let state = t.path().join("state");
    std::fs::create_dir(&state).unwrap();
    if let Err(e) = std::os::unix::fs::lchown(&state, Some(65534), Some(65534)) {
        eprintln!("skipped: cannot give a directory to another user ({e}); run as root to test");
        return;
    }
    let e = prepare_state(&state).unwrap_err();
    assert!(e.to_string().contains("owned by another user"), "{e}");
}

/// An atomic write replaces what is at the path, a link of yours included, and never writes
/// through the link: the file it led to keeps its content. The old file is there until the new
/// one replaces it, so a reader never finds none.
#[cfg(unix)]
#[test]
fn an_atomic_write_replaces_a_link_of_yours_not_its_target() {
    let t = tempfile::tempdir().unwrap();
    let target = t.path().join("target.json");
    std::fs::write(&target, b"old").unwrap();
    let link = t.path().join("snap.json");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    write_atomic(&link, b"new").unwrap();
    assert_eq!(std::fs::read(&target).unwrap(), b"old");
    assert!(
        !std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(std::fs::read(&link).unwrap(), b"new");
    // A directory in the way is an error, and what was there stays.
    let dir = t.path().join("dir.json");
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(dir.join("x"), b"x").unwrap();
    assert!(write_atomic(&dir, b"new").is_err());
    assert!(dir.join("x").exists());
    assert_eq!(
        std::fs::read_dir(t.path()).unwrap().count(),
        3,
        "no temp file left"
    );
}

/// A file rewritten on every hook: the old one steps aside to `prev`, the new one takes the
/// name, and a reader that finds the name free (a writer killed between its two renames) reads
/// the old one, whole.
#[cfg(unix)]
#[test]
fn a_rotating_write_keeps_the_last_file_until_the_new_one_is_in_place() {
    let t = tempfile::tempdir().unwrap();
    let (path, prev) = (t.path().join("snap.json"), t.path().join(".snap.json.prev"));
    assert_eq!(
        read_rotating(&path, &prev, 100).unwrap_err().kind(),
        io::ErrorKind::NotFound
    );
    write_rotating(&path, &prev, b"1").unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), b"1");
    assert!(!prev.exists(), "nothing to step aside the first time");
    write_rotating(&path, &prev, b"2").unwrap();
    write_rotating(&path, &prev, b"3").unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), b"3");
    assert_eq!(std::fs::read(&prev).unwrap(), b"2");
    assert_eq!(mode(&path), 0o600);
    assert_eq!(
        std::fs::read_dir(t.path()).unwrap().count(),
        2,
        "no temp file left"
    );
    // Killed between the renames: only `prev` is there.
    std::fs::rename(&path, t.path().join("gone")).unwrap();
    assert_eq!(read_rotating(&path, &prev, 100).unwrap(), b"2");
    write_rotating(&path, &prev, b"4").unwrap();
    assert_eq!(read_rotating(&path, &prev, 100).unwrap(), b"4");
    // A link of someone else's at either name is refused, and what it leads to stays.
    let victim = t.path().join("victim");
    std::fs::write(&victim, b"mine").unwrap();
    assert!(!prev.exists(), "the old one went with the kill");
    if !foreign_symlink(&victim, &prev) {
        return;
    }
    assert!(write_rotating(&path, &prev, b"5").is_err());
    assert_eq!(std::fs::read(&path).unwrap(), b"4");
    assert_eq!(std::fs::read(&victim).unwrap(), b"mine");
    // A directory in the way is not stepped aside: an error, and it stays.
    std::fs::remove_file(&prev).unwrap();
    std::fs::remove_file(&path).unwrap();
    std::fs::create_dir(&path).unwrap();
    assert!(write_rotating(&path, &prev, b"6").is_err());
    assert!(path.is_dir() && !prev.exists());
}

//! Directories: the state directory prepared once (yours, 0700, its real path returned), and
//! directories under it entered one component at a time, created 0700 when missing.

use std::fs::Metadata;
use std::io;
use std::path::{Component, Path, PathBuf};

use super::{check_symlink, foreign_link, is_mine, owner, with_path};

fn dir_builder() -> std::fs::DirBuilder {
    let mut b = std::fs::DirBuilder::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        b.mode(0o700);
    }
    b
}

/// The state directory, ready for use: created 0700 when missing; a symlink to it must be
/// yours; the directory must be yours (a looser mode is tightened to 0700). Returns its real
/// path, which every later access goes through.
pub fn prepare_state(state: &Path) -> io::Result<PathBuf> {
    match std::fs::symlink_metadata(state) {
        Ok(m) if m.file_type().is_symlink() && !is_mine(&m) => {
            return Err(foreign_link(state, &m));
        }
        Ok(_) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            let mut b = dir_builder();
            b.recursive(true);
            b.create(state)
                .map_err(|e| with_path(state, "cannot create", e))?;
        }
        Err(e) => return Err(with_path(state, "cannot read", e)),
    }
    let m = std::fs::metadata(state).map_err(|e| with_path(state, "cannot read", e))?;
    if !m.is_dir() {
        return Err(io::Error::new(
            io::ErrorKind::NotADirectory,
            format!("state directory {} is not a directory", state.display()),
        ));
    }
    if !is_mine(&m) {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!(
                "state directory {} is owned by another user ({}); refusing to use it",
                state.display(),
                owner(&m)
            ),
        ));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if m.permissions().mode() & 0o077 != 0 {
            std::fs::set_permissions(state, std::fs::Permissions::from_mode(0o700))
                .map_err(|e| with_path(state, "cannot make private", e))?;
        }
    }
    std::fs::canonicalize(state).map_err(|e| with_path(state, "cannot resolve", e))
}

/// Enter one directory: a directory, or a symlink of yours to one; created 0700 when missing.
fn enter_or_create(dir: &Path) -> io::Result<()> {
    for _ in 0..2 {
        match std::fs::symlink_metadata(dir) {
            Ok(m) if m.file_type().is_symlink() => {
                if !is_mine(&m) {
                    return Err(foreign_link(dir, &m));
                }
                return match std::fs::metadata(dir) {
                    Ok(t) if t.is_dir() => Ok(()),
                    Ok(_) => Err(not_a_dir(dir)),
                    Err(e) => Err(with_path(dir, "cannot enter", e)),
                };
            }
            Ok(m) if m.is_dir() => {
                tighten_dir(dir, &m);
                return Ok(());
            }
            Ok(_) => return Err(not_a_dir(dir)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => match dir_builder().create(dir) {
                Ok(()) => return Ok(()),
                // Another hook made it first: check what is there now.
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(with_path(dir, "cannot create", e)),
            },
            Err(e) => return Err(with_path(dir, "cannot enter", e)),
        }
    }
    Err(not_a_dir(dir))
}

/// A directory of ours under the state directory left open to others (made by an older seed,
/// or by hand) is made 0700 when seed enters it. Someone else's is left as it is (seed could not
/// change it anyway); a link's target is the link owner's choice. Best effort: a directory
/// that cannot be changed is still used.
fn tighten_dir(dir: &Path, m: &Metadata) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if is_mine(m) && m.permissions().mode() & 0o077 != 0 {
            let _ = std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700));
        }
    }
    #[cfg(not(unix))]
    let _ = (dir, m);
}

fn not_a_dir(dir: &Path) -> io::Error {
    io::Error::new(
        io::ErrorKind::NotADirectory,
        format!("{} is not a directory", dir.display()),
    )
}

/// Make `dir` (under the prepared `state`) ready, one component at a time: each existing one
/// is a directory or a symlink of yours to one, missing ones are created 0700.
pub fn ensure_dir_in(state: &Path, dir: &Path) -> io::Result<()> {
    let rel = dir.strip_prefix(state).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "{} is not inside the state directory {}",
                dir.display(),
                state.display()
            ),
        )
    })?;
    let mut cur = state.to_path_buf();
    for c in rel.components() {
        match c {
            Component::Normal(name) => cur.push(name),
            _ => {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!("{} leaves the state directory", dir.display()),
                ));
            }
        }
        enter_or_create(&cur)?;
    }
    Ok(())
}

/// Create `dir` (and parents) with mode 0700 when missing; refuse it when it is a foreign
/// symlink. Only the leaf is checked: under the state directory use `ensure_dir_in`.
pub fn ensure_dir(dir: &Path) -> io::Result<()> {
    check_symlink(dir)?;
    if dir.is_dir() {
        return Ok(());
    }
    let mut b = dir_builder();
    b.recursive(true);
    b.create(dir)
        .map_err(|e| with_path(dir, "cannot create", e))
}

//! How seed touches its state directory: directories 0700, files 0600, never through a
//! symlink someone else owns (someone could point it at a file of yours, or feed seed a forged
//! snapshot). The state directory itself must be yours; a symlink of yours to it is fine.
//!
//! - `prepare_state` checks (or creates) the state directory once and returns its real path,
//!   so a link swapped afterwards changes nothing.
//! - `ensure_dir_in` enters every directory component under it one at a time: each one is a
//!   directory or a symlink of yours to one, and missing ones are created 0700.
//! - Files are opened without following a link (`O_NOFOLLOW`), so there is no window between
//!   checking the leaf and opening it; a leaf that is a link of yours is then followed.
//!
//! This file holds the ownership checks every access makes; `dirs` prepares and enters
//! directories, `open` opens and reads files, `write` replaces them whole.

mod dirs;
mod open;
mod write;

use std::fs::Metadata;
use std::io;
use std::path::Path;

pub use dirs::{ensure_dir, ensure_dir_in, prepare_state};
pub use open::{
    open_append, open_read, open_regular, read_at_most, read_bounded, read_bounded_checked,
};
pub use write::{read_rotating, write_atomic, write_rotating};

/// The effective user id: the owner of `/proc/self` on Linux, else the owner of `$HOME`
/// (no unsafe `geteuid` call).
#[cfg(unix)]
pub fn my_uid() -> Option<u32> {
    use std::os::unix::fs::MetadataExt;
    static UID: std::sync::OnceLock<Option<u32>> = std::sync::OnceLock::new();
    *UID.get_or_init(|| {
        if let Ok(m) = std::fs::metadata("/proc/self") {
            return Some(m.uid());
        }
        let home = std::env::var_os("HOME")?;
        std::fs::metadata(home).ok().map(|m| m.uid())
    })
}

/// Whether `m` belongs to the current user (always true where ownership is not checked).
fn is_mine(m: &Metadata) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        my_uid().is_some_and(|me| m.uid() == me)
    }
    #[cfg(not(unix))]
    {
        let _ = m;
        true
    }
}

fn owner(m: &Metadata) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        format!("uid {}", m.uid())
    }
    #[cfg(not(unix))]
    {
        let _ = m;
        "another user".into()
    }
}

fn foreign_link(path: &Path, m: &Metadata) -> io::Error {
    io::Error::new(
        io::ErrorKind::PermissionDenied,
        format!(
            "{} is a symlink owned by another user ({}); refusing to follow it",
            path.display(),
            owner(m)
        ),
    )
}

/// Refuse `path` when it is a symlink owned by another user; a symlink you own is followed.
pub fn check_symlink(path: &Path) -> io::Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() && !is_mine(&m) => Err(foreign_link(path, &m)),
        _ => Ok(()),
    }
}

fn with_path(path: &Path, what: &str, e: io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("{what} {}: {e}", path.display()))
}

/// Refuse a symlink owned by another user at any component of `path` below `root` (the
/// state directory, a project): `root` is trusted, what lies under it must be yours or plain.
pub fn verify_in(root: &Path, path: &Path) -> io::Result<()> {
    let Ok(rel) = path.strip_prefix(root) else {
        return check_symlink(path);
    };
    check_symlink(root)?;
    let mut cur = root.to_path_buf();
    for c in rel.components() {
        cur.push(c);
        check_symlink(&cur)?;
    }
    Ok(())
}

#[cfg(test)]
#[path = "safe_fs_tests.rs"]
mod tests;

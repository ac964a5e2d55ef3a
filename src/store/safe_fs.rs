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

use std::ffi::OsString;
use std::fs::{File, Metadata, OpenOptions};
use std::io::{self, Write};
use std::path::{Component, Path, PathBuf};

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

fn dir_builder() -> std::fs::DirBuilder {
    let mut b = std::fs::DirBuilder::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        b.mode(0o700);
    }
    b
}

fn with_path(path: &Path, what: &str, e: io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("{what} {}: {e}", path.display()))
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

/// A file of ours that seed writes (a log) left readable by others is made 0600, through the
/// open handle (no path to swap). Only a regular file reached without a link.
fn tighten_file(f: &File) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if let Ok(m) = f.metadata()
            && m.is_file()
            && is_mine(&m)
            && m.permissions().mode() & 0o077 != 0
        {
            let _ = f.set_permissions(std::fs::Permissions::from_mode(0o600));
        }
    }
    #[cfg(not(unix))]
    let _ = f;
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

fn private(opts: &mut OpenOptions) -> &mut OpenOptions {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.mode(0o600);
    }
    opts
}

/// Open `path` without following a symlink at the leaf; a leaf that is a symlink of yours is
/// then followed (checked again after opening, so it cannot have been swapped meanwhile).
fn open_leaf(path: &Path, opts: &OpenOptions) -> io::Result<File> {
    let mut strict = opts.clone();
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        strict.custom_flags(libc::O_NOFOLLOW);
    }
    #[cfg(not(unix))]
    check_symlink(path)?;
    let err = match strict.open(path) {
        Ok(f) => return Ok(f),
        Err(e) => e,
    };
    // A link at the leaf fails with ELOOP (EMLINK on FreeBSD): look at what is there.
    let Ok(link) = std::fs::symlink_metadata(path) else {
        return Err(err);
    };
    if !link.file_type().is_symlink() {
        return Err(err);
    }
    if !is_mine(&link) {
        return Err(foreign_link(path, &link));
    }
    let f = opts.open(path)?;
    let again = std::fs::symlink_metadata(path)?;
    if !same_file(&link, &again) || !is_mine(&again) {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!("{} changed while being opened", path.display()),
        ));
    }
    Ok(f)
}

fn same_file(a: &Metadata, b: &Metadata) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        a.dev() == b.dev() && a.ino() == b.ino()
    }
    #[cfg(not(unix))]
    {
        a.file_type() == b.file_type()
    }
}

fn opened(path: &Path, r: io::Result<File>) -> io::Result<File> {
    r.map_err(|e| with_path(path, "cannot open", e))
}

/// Open for appending (created 0600; an existing file of ours that is looser is made 0600).
pub fn open_append(path: &Path) -> io::Result<File> {
    let mut o = OpenOptions::new();
    private(o.append(true).create(true).read(true));
    let f = opened(path, open_leaf(path, &o))?;
    // Only the file at `path` itself, not one a link of yours leads to.
    if let (Ok(leaf), Ok(open)) = (std::fs::symlink_metadata(path), f.metadata())
        && leaf.is_file()
        && same_file(&leaf, &open)
    {
        tighten_file(&f);
    }
    Ok(f)
}

/// Open for reading.
pub fn open_read(path: &Path) -> io::Result<File> {
    let mut o = OpenOptions::new();
    o.read(true);
    open_leaf(path, &o)
}

/// A file opened for reading must be a regular file: a FIFO would block seed, a device
/// (`/dev/zero`) never ends. Opened non-blocking so that opening a FIFO cannot hang (the
/// flag changes nothing for a regular file).
fn regular(opts: &mut OpenOptions) -> &mut OpenOptions {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.custom_flags(libc::O_NONBLOCK);
    }
    opts
}

fn must_be_regular(path: &Path, f: File) -> io::Result<File> {
    let m = f.metadata()?;
    if m.is_dir() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} is a directory", path.display()),
        ));
    }
    if !m.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} is not a regular file", path.display()),
        ));
    }
    Ok(f)
}

/// Open a file the user named (a sequence, an events file) for reading: a symlink of yours is
/// followed, one owned by another user is refused, and only a regular file is accepted.
pub fn open_regular(path: &Path) -> io::Result<File> {
    check_symlink(path)?;
    let mut o = OpenOptions::new();
    regular(o.read(true));
    must_be_regular(path, o.open(path)?)
}

/// Read `path` no further than `limit` bytes; `Ok(None)` when it is larger.
pub fn read_at_most(f: File, limit: u64) -> io::Result<Option<Vec<u8>>> {
    use std::io::Read;
    let size = f.metadata().map(|m| m.len()).unwrap_or(0).min(limit);
    let mut buf = Vec::with_capacity(size as usize + 1);
    f.take(limit + 1).read_to_end(&mut buf)?;
    Ok((buf.len() as u64 <= limit).then_some(buf))
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

/// Read a small file whole, refusing anything larger than `limit` bytes and anything that is
/// not a regular file.
pub fn read_bounded(path: &Path, limit: u64) -> io::Result<Vec<u8>> {
    read_bounded_checked(path, limit, |_| Ok(()))
}

/// [`read_bounded`], with `check` judging the file that was opened (its owner, its mode)
/// before a byte of it is read: the file itself, not whatever the path names a moment later.
pub fn read_bounded_checked(
    path: &Path,
    limit: u64,
    check: impl FnOnce(&Metadata) -> io::Result<()>,
) -> io::Result<Vec<u8>> {
    use std::io::Read;
    let mut o = OpenOptions::new();
    regular(o.read(true));
    let f = must_be_regular(path, open_leaf(path, &o)?)?;
    check(&f.metadata()?)?;
    let size = f.metadata().map(|m| m.len()).unwrap_or(0).min(limit);
    let mut buf = Vec::with_capacity(size as usize + 1);
    f.take(limit + 1).read_to_end(&mut buf)?;
    if buf.len() as u64 > limit {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{} is larger than {limit} bytes", path.display()),
        ));
    }
    Ok(buf)
}

/// Replace `path` atomically: write a temp file beside it, then rename it over `path`. A
/// reader sees the old file or the new one, never a part and never none. The rename replaces
/// whatever is at `path`, a link of yours included, never a link's target.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    check_symlink(path)?;
    let tmp = write_temp(path, bytes)?;
    finish(path, &tmp, std::fs::rename(&tmp, path))
}

/// [`write_atomic`] for a file rewritten on every hook (a snapshot): the old file first steps
/// aside to `prev`, then the new one takes the free name. A rename that replaces an existing
/// file makes ext4 (`auto_da_alloc`) write the new file's data out first, measured at 0.3 ms
/// of every hook; renames onto free names do not. A kill between the two renames leaves the
/// old file as `prev`, whole, which readers fall back to ([`read_rotating`]).
pub fn write_rotating(path: &Path, prev: &Path, bytes: &[u8]) -> io::Result<()> {
    check_symlink(path)?;
    check_symlink(prev)?;
    if std::fs::symlink_metadata(path).is_ok_and(|m| m.is_dir()) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("cannot write {}: it is a directory", path.display()),
        ));
    }
    let tmp = write_temp(path, bytes)?;
    let steps = (|| {
        remove_if_there(prev)?;
        match std::fs::rename(path, prev) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
        std::fs::rename(&tmp, path)
    })();
    finish(path, &tmp, steps)
}

/// The file [`write_rotating`] keeps at `path`, else the one it stepped aside to `prev`.
pub fn read_rotating(path: &Path, prev: &Path, limit: u64) -> io::Result<Vec<u8>> {
    match read_bounded(path, limit) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => read_bounded(prev, limit),
        r => r,
    }
}

fn remove_if_there(path: &Path) -> io::Result<()> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// `bytes` in a fresh private temp file beside `path` (`.<name>.<pid>.tmp`).
fn write_temp(path: &Path, bytes: &[u8]) -> io::Result<PathBuf> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_default();
    let mut tmp_name = OsString::from(".");
    tmp_name.push(&name);
    tmp_name.push(format!(".{}.tmp", std::process::id()));
    let tmp = dir.join(tmp_name);
    let written = (|| {
        // A temp file a killed process with the same pid left behind; then a fresh one that
        // cannot be a link (create_new refuses anything already there).
        let _ = std::fs::remove_file(&tmp);
        let mut o = OpenOptions::new();
        private(o.write(true).create_new(true));
        let mut f = open_leaf(&tmp, &o)?;
        f.write_all(bytes)
    })();
    finish(path, &tmp, written).map(|()| tmp)
}

/// The temp file goes when the write failed; the error names `path`.
fn finish(path: &Path, tmp: &Path, result: io::Result<()>) -> io::Result<()> {
    if result.is_err() {
        let _ = std::fs::remove_file(tmp);
    }
    result.map_err(|e| with_path(path, "cannot write", e))
}

#[cfg(test)]
#[path = "safe_fs_tests.rs"]
mod tests;

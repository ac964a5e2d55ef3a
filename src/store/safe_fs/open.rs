//! Opening files: without following a link at the leaf (one of yours is then followed), 0600
//! when created, only regular files for reading, and reads bounded in size.

use std::fs::{File, Metadata, OpenOptions};
use std::io;
use std::path::Path;

use super::{check_symlink, foreign_link, is_mine, with_path};

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

pub(super) fn private(opts: &mut OpenOptions) -> &mut OpenOptions {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.mode(0o600);
    }
    opts
}

/// Open `path` without following a symlink at the leaf; a leaf that is a symlink of yours is
/// then followed (checked again after opening, so it cannot have been swapped meanwhile).
pub(super) fn open_leaf(path: &Path, opts: &OpenOptions) -> io::Result<File> {
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

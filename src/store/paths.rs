//! Where seed keeps its state, and how files there are opened: directories 0700, files 0600,
//! never through a symlink someone else owns.
//!
//! ```text
//! <state>/                         $SEED_HOME, else $HEAVEN_DATA_DIR/seed, else ~/.local/state/seed
//!   sessions/<session>/log.jsonl   append-only records, one line per hook event
//!   sessions/<session>/session.json            hook bookkeeping (records, agents, injection)
//!   sessions/<session>/snapshots/<seq>.json    engine snapshot per sequence (a cache of the log)
//!   sessions/<session>/charts/<seq>.json       the compiled chart that snapshot belongs to
//!   errors.jsonl                   failures that could not be tied to a session
//!   allowed_tools.seed, state.log  seed 000 compatibility files
//! ```

use std::ffi::OsString;
use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Resolve the state directory from an environment lookup (no file system access).
pub fn state_dir_with(env: &dyn Fn(&str) -> Option<OsString>) -> io::Result<PathBuf> {
    let set = |k: &str| env(k).filter(|v| !v.is_empty()).map(PathBuf::from);
    if let Some(p) = set("SEED_HOME") {
        return Ok(p);
    }
    if let Some(p) = set("HEAVEN_DATA_DIR") {
        return Ok(p.join("seed"));
    }
    // XDG on Linux and macOS alike (what terminal users expect); Known Folders on Windows.
    if let Some(p) = set("XDG_STATE_HOME") {
        return Ok(p.join("seed"));
    }
    use etcetera::BaseStrategy;
    let base = etcetera::choose_base_strategy()
        .map_err(|e| io::Error::other(format!("no home directory for the state dir: {e}")))?;
    Ok(base
        .state_dir()
        .unwrap_or_else(|| base.data_dir())
        .join("seed"))
}

/// The state directory from the process environment.
pub fn state_dir() -> io::Result<PathBuf> {
    state_dir_with(&|k| std::env::var_os(k))
}

pub fn sessions_dir(state: &Path) -> PathBuf {
    state.join("sessions")
}

/// A session id as a single safe path component (`served:<id>` and worse stay inside).
pub fn safe_component(id: &str) -> String {
    let mut s: String = id
        .chars()
        .take(128)
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() || s.chars().all(|c| c == '.') {
        s = format!("_{s}");
    }
    s
}

pub fn session_dir(state: &Path, session: &str) -> PathBuf {
    sessions_dir(state).join(safe_component(session))
}

pub fn session_log(state: &Path, session: &str) -> PathBuf {
    session_dir(state, session).join("log.jsonl")
}

pub fn session_meta(state: &Path, session: &str) -> PathBuf {
    session_dir(state, session).join("session.json")
}

pub fn snapshot_path(state: &Path, session: &str, sequence: &str) -> PathBuf {
    session_dir(state, session)
        .join("snapshots")
        .join(format!("{}.json", safe_component(sequence)))
}

pub fn chart_path(state: &Path, session: &str, sequence: &str) -> PathBuf {
    session_dir(state, session)
        .join("charts")
        .join(format!("{}.json", safe_component(sequence)))
}

pub fn errors_log(state: &Path) -> PathBuf {
    state.join("errors.jsonl")
}

/// The effective user id, for the symlink-owner check: the owner of `/proc/self` on Linux,
/// else the owner of `$HOME` (no libc needed).
#[cfg(unix)]
fn my_uid() -> Option<u32> {
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

/// Refuse `path` when it is a symlink owned by another user (someone could point it at a file
/// of yours); a symlink you own is followed.
pub fn check_symlink(path: &Path) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if let Ok(m) = std::fs::symlink_metadata(path)
            && m.file_type().is_symlink()
            && my_uid().is_none_or(|me| m.uid() != me)
        {
            return Err(io::Error::new(
                io::ErrorKind::PermissionDenied,
                format!(
                    "{} is a symlink owned by another user (uid {}); refusing to follow it",
                    path.display(),
                    m.uid()
                ),
            ));
        }
    }
    let _ = path;
    Ok(())
}

/// Create `dir` (and parents) with mode 0700 when missing; refuse a foreign symlink.
pub fn ensure_dir(dir: &Path) -> io::Result<()> {
    check_symlink(dir)?;
    if dir.is_dir() {
        return Ok(());
    }
    let mut b = std::fs::DirBuilder::new();
    b.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        b.mode(0o700);
    }
    b.create(dir)
        .map_err(|e| io::Error::new(e.kind(), format!("cannot create {}: {e}", dir.display())))
}

fn private(opts: &mut OpenOptions) -> &mut OpenOptions {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.mode(0o600);
    }
    opts
}

/// Open for appending (created 0600).
pub fn open_append(path: &Path) -> io::Result<File> {
    check_symlink(path)?;
    private(OpenOptions::new().append(true).create(true).read(true))
        .open(path)
        .map_err(|e| io::Error::new(e.kind(), format!("cannot open {}: {e}", path.display())))
}

/// Replace `path` atomically: write a temp file beside it, then rename over it. A reader sees
/// the old file or the new one, never a part (the snapshot is always a whole file).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_whole(path, bytes, false)
}

/// Replace a cache file (a snapshot): whole or absent, never a part, and without the flush
/// a rename over an existing file costs on ext4.
pub fn write_cache(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_whole(path, bytes, true)
}

fn write_whole(path: &Path, bytes: &[u8], cache: bool) -> io::Result<()> {
    check_symlink(path)?;
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_default();
    let mut tmp_name = OsString::from(".");
    tmp_name.push(&name);
    tmp_name.push(format!(".{}.tmp", std::process::id()));
    let tmp = dir.join(tmp_name);
    let result = (|| {
        let mut f =
            private(OpenOptions::new().write(true).create(true).truncate(true)).open(&tmp)?;
        f.write_all(bytes)?;
        drop(f);
        if cache {
            // Renaming over an existing file makes ext4 (auto_da_alloc) flush the new file
            // at once, ~0.5 ms per hook. Removing the old one first avoids that; the moment
            // with no file is harmless for a cache: whoever finds none folds the log instead.
            let _ = std::fs::remove_file(path);
        }
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.map_err(|e| io::Error::new(e.kind(), format!("cannot write {}: {e}", path.display())))
}

/// Read a small file whole, refusing anything larger than `limit` bytes.
pub fn read_bounded(path: &Path, limit: u64) -> io::Result<Vec<u8>> {
    use std::io::Read;
    check_symlink(path)?;
    let f = File::open(path)?;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_dir_precedence() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| {
                pairs
                    .iter()
                    .find(|(n, _)| *n == k)
                    .map(|(_, v)| OsString::from(v))
            }
        };
        let e = env(&[("SEED_HOME", "/a"), ("HEAVEN_DATA_DIR", "/h")]);
        assert_eq!(state_dir_with(&e).unwrap(), PathBuf::from("/a"));
        let e = env(&[("SEED_HOME", ""), ("HEAVEN_DATA_DIR", "/h")]);
        assert_eq!(state_dir_with(&e).unwrap(), PathBuf::from("/h/seed"));
        let e = env(&[("XDG_STATE_HOME", "/x")]);
        assert_eq!(state_dir_with(&e).unwrap(), PathBuf::from("/x/seed"));
    }

    #[test]
    fn components_are_safe() {
        assert_eq!(safe_component("served:abc/..x"), "served_abc_..x");
        assert_eq!(safe_component(".."), "_..");
        assert_eq!(safe_component(""), "_");
    }

    #[cfg(unix)]
    #[test]
    fn modes_and_atomic_writes() {
        use std::os::unix::fs::PermissionsExt;
        let t = tempfile::tempdir().unwrap();
        let d = t.path().join("a/b");
        ensure_dir(&d).unwrap();
        assert_eq!(
            std::fs::metadata(&d).unwrap().permissions().mode() & 0o777,
            0o700
        );
        let f = d.join("x.json");
        write_atomic(&f, b"{}").unwrap();
        write_atomic(&f, b"{\"a\":1}").unwrap();
        assert_eq!(std::fs::read(&f).unwrap(), b"{\"a\":1}");
        assert_eq!(
            std::fs::metadata(&f).unwrap().permissions().mode() & 0o777,
            0o600
        );
        assert_eq!(std::fs::read_dir(&d).unwrap().count(), 1);
        assert!(read_bounded(&f, 3).is_err());
    }
}

//! What `seed doctor`'s canned hook runs leave in the real state directory, undone when the
//! `Footprint` drops: the throwaway session's directory, `allowed_tools.seed` as it was, chart
//! cache entries and directories that were not there before. Dropping also runs when doctor
//! returns early with an error, so a failed check leaves nothing behind either.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::store::{compat, paths};

pub struct Footprint {
    state: PathBuf,
    session: String,
    /// Directories seed may create, and whether each was already there.
    dirs: Vec<(PathBuf, bool)>,
    cache_entries: BTreeSet<PathBuf>,
    allowed: Saved,
    /// Whether `state.log` was there: doctor's lines are taken out of it afterwards.
    state_log_there: bool,
}

/// How `allowed_tools.seed` was before the runs.
enum Saved {
    Absent,
    Bytes(Vec<u8>),
    Link(PathBuf),
    /// Unreadable or something else (a directory): not touched afterwards.
    Other,
}

fn listing(dir: &Path) -> BTreeSet<PathBuf> {
    std::fs::read_dir(dir)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default()
}

fn save(path: &Path) -> Saved {
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Saved::Absent,
        Ok(m) if m.file_type().is_symlink() => {
            std::fs::read_link(path).map_or(Saved::Other, Saved::Link)
        }
        Ok(m) if m.is_file() => std::fs::read(path).map_or(Saved::Other, Saved::Bytes),
        _ => Saved::Other,
    }
}

impl Footprint {
    pub fn take(state: PathBuf, session: &str) -> Footprint {
        let cache = paths::chart_cache_dir(&state);
        // Outermost first; restored innermost first.
        let dirs = [
            state.clone(),
            paths::sessions_dir(&state),
            state.join("cache"),
            cache.clone(),
        ]
        .into_iter()
        .map(|d| {
            let there = std::fs::symlink_metadata(&d).is_ok();
            (d, there)
        })
        .collect();
        Footprint {
            cache_entries: listing(&cache),
            allowed: save(&compat::allowed_tools_path(&state)),
            state_log_there: std::fs::symlink_metadata(compat::state_log_path(&state)).is_ok(),
            dirs,
            session: session.to_string(),
            state,
        }
    }

    fn restore_allowed(&self) {
        let path = compat::allowed_tools_path(&self.state);
        let now = save(&path);
        match (&self.allowed, now) {
            (Saved::Absent, Saved::Bytes(_)) => {
                let _ = std::fs::remove_file(&path);
            }
            (Saved::Bytes(old), Saved::Bytes(new)) if *old != new => {
                let _ = paths::write_atomic(&path, old);
            }
            #[cfg(unix)]
            (Saved::Link(target), now) if !matches!(&now, Saved::Link(t) if t == target) => {
                let _ = std::fs::remove_file(&path);
                let _ = std::os::unix::fs::symlink(target, &path);
            }
            _ => {}
        }
    }

    /// Take the throwaway session's lines out of `state.log` (its PostToolUse runs append
    /// one each), in place under the lock hooks append with, so a line a real hook adds
    /// meanwhile is kept; a file only doctor wrote is removed.
    fn restore_state_log(&self) -> std::io::Result<()> {
        use std::io::{Read, Seek, Write};
        let path = compat::state_log_path(&self.state);
        if !std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file()) {
            return Ok(());
        }
        let mut f = paths::open_append(&path)?;
        crate::store::log::lock_within(&f, &path, crate::store::log::LOCK_WAIT)?;
        let mut text = String::new();
        f.seek(std::io::SeekFrom::Start(0))?;
        f.read_to_string(&mut text)?;
        let mark = format!("\t{}\t", self.session);
        let kept: String = text
            .split_inclusive('\n')
            .filter(|l| !l.contains(&mark))
            .collect();
        if kept.len() == text.len() {
            return Ok(());
        }
        if kept.is_empty() && !self.state_log_there {
            return std::fs::remove_file(&path);
        }
        f.set_len(0)?;
        f.write_all(kept.as_bytes())
    }
}

impl Drop for Footprint {
    fn drop(&mut self) {
        // remove_dir_all removes a link in the session's place, not what it points to.
        let _ = std::fs::remove_dir_all(paths::session_dir(&self.state, &self.session));
        let cache = paths::chart_cache_dir(&self.state);
        for entry in listing(&cache).difference(&self.cache_entries) {
            let _ = std::fs::remove_file(entry);
        }
        self.restore_allowed();
        let _ = self.restore_state_log();
        // Directories seed created for the runs, only when nothing else has appeared in them.
        for (dir, there) in self.dirs.iter().rev() {
            if !there {
                let _ = std::fs::remove_dir(dir);
            }
        }
    }
}

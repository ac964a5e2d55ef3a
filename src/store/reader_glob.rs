//! Globs for the deep-state readers, walked within a budget: a reader's pattern may reach
//! far more directories than it means to (`count:/*/*/*/*/*/*`), and every hook evaluates it.

use std::fs;
use std::path::{Component, Path, PathBuf};
use std::time::{Duration, Instant};

/// Most directory entries one reader evaluation looks at, over every directory its glob
/// walks.
pub const MAX_SCAN_ENTRIES: usize = crate::engine::ir::SCAN_ENTRIES;
/// Longest one reader evaluation walks directories. A reader of a few state files takes
/// microseconds; the budget is for a glob that reaches far more than it means to.
pub const MAX_SCAN_TIME: Duration = Duration::from_millis(crate::engine::ir::SCAN_MS);

/// What one reader evaluation may still walk. Once spent, the walk stops and the reader's
/// value is unknown (`null`): a partial count or an older "newest" file would be wrong.
#[derive(Debug)]
pub struct Budget {
    max: usize,
    entries: usize,
    started: Instant,
    limit: Duration,
    exceeded: bool,
    /// How long the walk had taken when it stopped.
    took: Duration,
}

impl Budget {
    pub fn new(entries: usize, limit: Duration) -> Budget {
        Budget {
            max: entries,
            entries,
            started: Instant::now(),
            limit,
            exceeded: false,
            took: Duration::ZERO,
        }
    }

    /// The budget of one reader evaluation.
    pub fn per_reader() -> Budget {
        Budget::new(MAX_SCAN_ENTRIES, MAX_SCAN_TIME)
    }

    /// Spend one directory entry; `false` once the budget is spent.
    pub(super) fn take(&mut self) -> bool {
        if self.exceeded {
            return false;
        }
        // The clock is read every 64 entries: reading it costs more than an entry's check.
        if self.entries == 0
            || (self.entries.is_multiple_of(64) && self.started.elapsed() > self.limit)
        {
            self.exceeded = true;
            self.took = self.started.elapsed();
            return false;
        }
        self.entries -= 1;
        true
    }

    pub fn exceeded(&self) -> bool {
        self.exceeded
    }

    /// Why a walk stopped, for the record: entries seen and time taken.
    pub fn report(&self) -> String {
        format!(
            "stopped after {} directory entries in {} ms (the budget of one reader is {} entries and {} ms)",
            self.max - self.entries,
            self.took.as_millis(),
            self.max,
            self.limit.as_millis()
        )
    }
}

pub(super) fn is_pattern(s: &str) -> bool {
    s.contains(['*', '?', '['])
}

/// Files matching a glob whose wildcards (`*`, `?`) sit inside single path components,
/// within one reader's budget.
pub fn glob(pattern: &Path) -> Vec<PathBuf> {
    glob_within(pattern, &mut Budget::per_reader())
}

/// [`glob`] spending `budget`: once it is spent, what was found so far.
pub fn glob_within(pattern: &Path, budget: &mut Budget) -> Vec<PathBuf> {
    let mut current: Vec<PathBuf> = vec![PathBuf::new()];
    for comp in pattern.components() {
        let part = comp.as_os_str().to_string_lossy();
        let wild = matches!(comp, Component::Normal(_)) && is_pattern(&part);
        let mut next = Vec::new();
        for base in &current {
            if !wild {
                next.push(base.join(comp.as_os_str()));
                continue;
            }
            let matcher = wildmatch::WildMatch::new(&part);
            let dir = if base.as_os_str().is_empty() {
                Path::new(".")
            } else {
                base.as_path()
            };
            let Ok(entries) = fs::read_dir(dir) else {
                continue;
            };
            for e in entries {
                if !budget.take() {
                    break;
                }
                let Ok(e) = e else { continue };
                if matcher.matches(&e.file_name().to_string_lossy()) {
                    next.push(base.join(e.file_name()));
                }
            }
            if budget.exceeded() {
                break;
            }
        }
        current = next;
        if current.is_empty() || budget.exceeded() {
            break;
        }
    }
    current.retain(|p| !p.as_os_str().is_empty() && p.exists());
    current.sort();
    current
}

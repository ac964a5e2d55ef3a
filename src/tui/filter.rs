//! The timeline filter (`/`), kept up to date as rows arrive so a frame never scans the log.
//!
//! The text matches a row's name, lane or input; a word that names an outcome (`deny`, `fail`,
//! `ask`…) also matches the calls that ended so, whatever their names.

use super::rows::{Outcome, Rows};

/// The timeline filter (`/`): rows whose name, lane or input contains the text, or whose
/// outcome the text names.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Filter {
    pub text: String,
    pub editing: bool,
    /// Indices of matching rows, kept up to date as rows arrive.
    pub matches: Vec<u32>,
    scanned: usize,
    /// The oldest row scanned while its call had not completed: its outcome may still change,
    /// so an outcome filter looks at it again (from here on) when more rows arrive.
    unsettled: Option<usize>,
}

/// The words that name an outcome, and the outcome each matches.
pub const OUTCOME_WORDS: &[(&str, Outcome)] = &[
    ("deny", Outcome::Denied),
    ("denied", Outcome::Denied),
    ("fail", Outcome::Failed),
    ("failed", Outcome::Failed),
    ("ask", Outcome::Advised),
    ("asked", Outcome::Advised),
    ("warn", Outcome::Advised),
    ("advised", Outcome::Advised),
];

/// The outcome a filter text names (`deny`, `/fail`, `Ask`), if it names one.
pub fn outcome_of(text: &str) -> Option<Outcome> {
    let word = text.trim().trim_start_matches('/').to_ascii_lowercase();
    OUTCOME_WORDS
        .iter()
        .find(|(w, _)| *w == word)
        .map(|(_, o)| *o)
}

impl Filter {
    pub fn active(&self) -> bool {
        !self.text.is_empty()
    }

    /// Re-scan from scratch (the text changed).
    pub fn reset(&mut self, rows: &Rows) {
        self.matches.clear();
        self.scanned = 0;
        self.unsettled = None;
        self.scan(rows);
    }

    /// Scan rows that arrived since the last call (and, for an outcome, the calls that had
    /// not completed then).
    pub fn scan(&mut self, rows: &Rows) {
        if self.text.is_empty() {
            self.scanned = rows.len();
            return;
        }
        let outcome = outcome_of(&self.text);
        if let (Some(_), Some(from)) = (outcome, self.unsettled.take()) {
            let keep = self.matches.partition_point(|&i| (i as usize) < from);
            self.matches.truncate(keep);
            self.scanned = from;
        }
        let needle = self.text.to_ascii_lowercase();
        for i in self.scanned..rows.len() {
            let Some(row) = rows.get(i) else { continue };
            let now = row.outcome(usize::MAX);
            if now == Outcome::Pending && self.unsettled.is_none() {
                self.unsettled = Some(i);
            }
            if rows.matches(row, &needle) || outcome.is_some_and(|o| o == now) {
                self.matches.push(i as u32);
            }
        }
        self.scanned = rows.len();
    }
}

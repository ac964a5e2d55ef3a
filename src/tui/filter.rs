//! The timeline filter (`/`), kept up to date as rows arrive so a frame never scans the log.

use super::rows::Rows;

/// The timeline filter (`/`): rows whose name, lane or input contains the text.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Filter {
    pub text: String,
    pub editing: bool,
    /// Indices of matching rows, kept up to date as rows arrive.
    pub matches: Vec<u32>,
    scanned: usize,
}

impl Filter {
    pub fn active(&self) -> bool {
        !self.text.is_empty()
    }

    /// Re-scan from scratch (the text changed).
    pub fn reset(&mut self, rows: &Rows) {
        self.matches.clear();
        self.scanned = 0;
        self.scan(rows);
    }

    /// Scan rows that arrived since the last call.
    pub fn scan(&mut self, rows: &Rows) {
        if self.text.is_empty() {
            self.scanned = rows.len();
            return;
        }
        let needle = self.text.to_ascii_lowercase();
        for i in self.scanned..rows.len() {
            if rows.get(i).is_some_and(|row| rows.matches(row, &needle)) {
                self.matches.push(i as u32);
            }
        }
        self.scanned = rows.len();
    }
}

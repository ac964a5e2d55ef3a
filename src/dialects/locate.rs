//! Load errors with `file:line:column`, and helpers to find where a key sits in source text
//! (serde's value trees drop positions; semantic errors still need to point somewhere).

use std::fmt;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub struct LoadError {
    pub file: String,
    /// 1-based; 0 when the error is about the whole file.
    pub line: u32,
    pub col: u32,
    pub message: String,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}: {}", self.file, self.message)
        } else {
            write!(
                f,
                "{}:{}:{}: {}",
                self.file, self.line, self.col, self.message
            )
        }
    }
}

impl LoadError {
    pub fn at(file: &str, line: u32, col: u32, message: impl Into<String>) -> LoadError {
        // One line, always: messages never carry newlines.
        let message = message.into().replace('\n', " ");
        LoadError {
            file: file.to_string(),
            line,
            col,
            message,
        }
    }
}

/// 1-based line and column (in characters) of a byte offset.
pub fn line_col_of_offset(text: &str, offset: usize) -> (u32, u32) {
    line_col_of_offset_bytes(text.as_bytes(), offset)
}

pub fn line_col_of_offset_bytes(bytes: &[u8], offset: usize) -> (u32, u32) {
    let offset = offset.min(bytes.len());
    let before = &bytes[..offset];
    // memchr: loaders compute many spans eagerly, and the hook loads a sequence every call.
    let line = memchr::memchr_iter(b'\n', before).count() as u32 + 1;
    let line_start = memchr::memrchr(b'\n', before).map(|p| p + 1).unwrap_or(0);
    let col = String::from_utf8_lossy(&before[line_start..])
        .chars()
        .count() as u32
        + 1;
    (line, col)
}

/// Line starts of a text, for many offset → line:column look-ups. Ascending look-ups on one
/// line count characters on from the previous one, so a minified file stays linear.
pub struct LineIndex<'a> {
    text: &'a str,
    starts: Vec<usize>,
    /// The last look-up: (offset, its column - 1), and the line it was on.
    last: Option<(usize, usize, usize)>,
}

impl<'a> LineIndex<'a> {
    pub fn new(text: &'a str) -> LineIndex<'a> {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex {
            text,
            starts,
            last: None,
        }
    }

    pub fn line_col(&mut self, offset: usize) -> (u32, u32) {
        let offset = offset.min(self.text.len());
        let line = self.starts.partition_point(|&s| s <= offset);
        let (from, base) = match self.last {
            Some((o, col, l)) if l == line && o <= offset => (o, col),
            _ => (self.starts[line - 1], 0),
        };
        let col = base
            + self
                .text
                .get(from..offset)
                .map(|s| s.chars().count())
                .unwrap_or(0);
        self.last = Some((offset, col, line));
        (line as u32, col as u32 + 1)
    }
}

/// Position of the first occurrence of `needle` after the occurrence of each of `path` in
/// turn (e.g. `["\"tool_transitions\"", "\"starlog.orient\""]`), or of the last found part.
pub fn find_path(text: &str, path: &[&str]) -> (u32, u32) {
    let mut from = 0usize;
    let mut found = None;
    for part in path {
        match text[from..].find(part) {
            Some(i) => {
                found = Some(from + i);
                from += i + part.len();
            }
            None => break,
        }
    }
    match found {
        Some(off) => line_col_of_offset(text, off),
        None => (1, 1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_index_agrees_with_a_fresh_count_in_any_order() {
        let t = "{\"é\": 1, \"ü\": {\"x\": 2},\n  \"ß\": [\"漢\", \"y\"]}";
        let offsets: Vec<usize> = t.char_indices().map(|(i, _)| i).collect();
        let mut index = LineIndex::new(t);
        for &o in offsets.iter().chain(offsets.iter().rev()).step_by(3) {
            assert_eq!(index.line_col(o), line_col_of_offset(t, o), "offset {o}");
        }
    }

    #[test]
    fn positions() {
        let t = "{\n  \"a\": {\n    \"b\": 1\n  }\n}";
        assert_eq!(line_col_of_offset(t, 0), (1, 1));
        assert_eq!(find_path(t, &["\"a\"", "\"b\""]), (3, 5));
        assert_eq!(
            LoadError::at("f.json", 3, 5, "x\ny").to_string(),
            "f.json:3:5: x y"
        );
        assert_eq!(
            LoadError::at("f.json", 0, 0, "gone").to_string(),
            "f.json: gone"
        );
    }
}

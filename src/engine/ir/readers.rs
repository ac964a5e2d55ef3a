//! Deep-state readers: what the host reads (a JSON value, a list aggregate, a file, a program
//! on `PATH`) and passes to `step` as facts.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The most directory entries the host walks for one reader evaluation, over every directory
/// its glob enters; past it (or [`SCAN_MS`]) the walk stops and the reader is unknown.
pub const SCAN_ENTRIES: usize = 10_000;
/// The longest the host walks directories for one reader evaluation, in milliseconds.
pub const SCAN_MS: u64 = 10;

/// A deep-state reader: data evaluated by the host, passed to `step` as facts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReaderDecl {
    pub name: String,
    pub kind: ReaderKind,
    pub description: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ReaderKind {
    /// JSON value at `pointer` in the newest file matching `path` (a glob).
    Json {
        path: String,
        pointer: String,
    },
    /// An aggregate over the list at `pointer` (an object's values) in the newest JSON file
    /// matching `path`: seed 002's dna.json keeps goals, failures and active modules as lists.
    JsonList {
        path: String,
        pointer: String,
        op: ListOp,
    },
    FileExists {
        path: String,
    },
    /// Number of files matching the glob.
    Count {
        path: String,
    },
    /// Age in seconds of the newest file matching the glob.
    Age {
        path: String,
    },
    /// `true` when the file at `path` contains `text` (seed 003's `index_is_placeholder`).
    Contains {
        path: String,
        text: String,
    },
    /// `true` when `program` is found on `PATH` (seed 003's `tool_available`, `which git`).
    OnPath {
        program: String,
    },
    /// The path itself, its variables expanded, as text: with `${CLAUDE_PROJECT_DIR}`, the
    /// project's directory, which a step's relative path is taken from (see
    /// [`PROJECT_DIR_READER`]).
    Dir {
        path: String,
    },
}

/// The reader a sequence declares to take relative paths from the project: input globs
/// written `${CLAUDE_PROJECT_DIR}/data/config.yaml` match under the directory it reads (and
/// anywhere, `*/data/config.yaml`, where it was not sampled).
pub const PROJECT_DIR_READER: &str = "CLAUDE_PROJECT_DIR";

/// What a [`ReaderKind::JsonList`] reader computes. `field` is a JSON pointer inside each item
/// (empty: the item itself). Anything that is not a list (or object) yields `null`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum ListOp {
    /// How many items there are; with `equals`, how many whose `field` equals it.
    Count {
        #[serde(default)]
        field: String,
        #[serde(default)]
        equals: Option<Value>,
    },
    /// Every item's `field` equals `equals` (`false` for an empty list).
    All { field: String, equals: Value },
    /// Some item's `field` equals `equals`.
    Any { field: String, equals: Value },
    /// `field` of the last item (the newest, for lists that are appended to).
    Last {
        #[serde(default)]
        field: String,
    },
    /// How many items (an object's keys) are missing from the list at pointer `other`.
    NotIn { other: String },
}

impl ReaderKind {
    /// The path the host expands and reads (for `OnPath`, the program name).
    pub fn path(&self) -> &str {
        match self {
            ReaderKind::Json { path, .. }
            | ReaderKind::JsonList { path, .. }
            | ReaderKind::FileExists { path }
            | ReaderKind::Count { path }
            | ReaderKind::Age { path }
            | ReaderKind::Contains { path, .. }
            | ReaderKind::Dir { path } => path,
            ReaderKind::OnPath { program } => program,
        }
    }
}

/// One lifecycle per item of a list a state file keeps (seed 002: one per organ of
/// `dna.json`'s blueprint): the host runs the chart once per item, the readers of that file
/// reading it narrowed to the item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Each {
    /// What an item is called (`organ`).
    pub name: String,
    /// The file (a reader path) and the object whose keys, or the list whose strings, are
    /// the items.
    pub path: String,
    pub pointer: String,
    /// Lists of the file kept per item: pointer → the field of an entry that names its item
    /// (empty: the entry is the name), e.g. `/failures` → `/module_name`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub narrow: BTreeMap<String, String>,
    /// Readers of other files, per item: reader → its path for one item, where `${EACH_PATH}`
    /// is the item with its dots as folders (a Python module's file).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub paths: BTreeMap<String, String>,
    /// The whole's progress: the readers of what is done and of how much there is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub progress: Option<EachProgress>,
}

/// `done` of `of` `label`: `1 of 2 goals achieved`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EachProgress {
    pub done: String,
    pub of: String,
    pub label: String,
}

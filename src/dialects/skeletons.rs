//! Commented skeletons of a new sequence in each dialect (`seed new`): small, valid as written,
//! and saying where each key is documented.

/// The dialects a sequence can be written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// A Mermaid statechart with its manifest (`NAME.toml` + `NAME.mmd`).
    Mermaid,
    /// seed 000's master-sequence JSON (`NAME.json`).
    Json,
    /// seed 003's workflow YAML (`NAME.yaml`).
    Yaml,
}

const MERMAID_TOML: &str = include_str!("skeletons/mermaid.toml");
const MERMAID_MMD: &str = include_str!("skeletons/mermaid.mmd");
const JSON: &str = include_str!("skeletons/master.json");
const YAML: &str = include_str!("skeletons/workflow.yaml");

/// The files of a new sequence called `name`, the entry file (the one to name and validate)
/// first. `name` must be a sequence name: letters, digits, `_` and `-`.
pub fn files(name: &str, dialect: Dialect) -> Vec<(String, String)> {
    let fill = |text: &str| text.replace("NAME", name);
    match dialect {
        Dialect::Mermaid => vec![
            (format!("{name}.toml"), fill(MERMAID_TOML)),
            (format!("{name}.mmd"), fill(MERMAID_MMD)),
        ],
        Dialect::Json => vec![(format!("{name}.json"), fill(JSON))],
        Dialect::Yaml => vec![(format!("{name}.yaml"), fill(YAML))],
    }
}

/// Whether `name` can name a sequence (and its files).
pub fn is_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        && !name.starts_with('-')
}

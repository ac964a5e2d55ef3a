//! The syntax tree of a Mermaid state diagram, with 1-based line/column positions.

/// A position in the diagram's source.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Pos {
    pub line: u32,
    pub col: u32,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Ident {
    pub name: String,
    pub pos: Pos,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Text {
    pub text: String,
    pub pos: Pos,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Stereo {
    Choice,
    Fork,
    Join,
    Unknown(String),
}

impl Stereo {
    pub fn parse(name: &str) -> Stereo {
        match name.trim().to_ascii_lowercase().as_str() {
            "choice" => Stereo::Choice,
            "fork" => Stereo::Fork,
            "join" => Stereo::Join,
            _ => Stereo::Unknown(name.trim().to_string()),
        }
    }
}

/// One end of a transition.
#[derive(Debug, Clone, PartialEq)]
pub enum End {
    /// `[*]`: the start (as a source) or the end (as a target) of the enclosing scope.
    Star(Pos),
    State(Ident),
}

/// The statements of a scope, split into regions by `--` (one region when there is none).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Body {
    pub regions: Vec<Vec<Stmt>>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Stmt {
    pub pos: Pos,
    pub kind: StmtKind,
}

#[derive(Debug, Clone, PartialEq)]
pub enum StmtKind {
    /// `state "label" as id`, `state id <<choice>>`, `state id { … }`, a bare `id`.
    State {
        id: Ident,
        label: Option<Text>,
        stereo: Option<(Stereo, Pos)>,
        body: Option<Body>,
    },
    /// `id : text` or `state id : text` (repeatable; each adds a row).
    Describe { id: Ident, text: Text },
    /// `a --> b` or `a --> b : label`.
    Edge {
        from: End,
        to: End,
        label: Option<Text>,
    },
    /// `note left of X : text`, a `note … end note` block, or a floating `note "text" as N`.
    Note { target: Option<Ident>, text: String },
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Diagram {
    /// `title:` from YAML front matter.
    pub title: Option<String>,
    pub body: Body,
}

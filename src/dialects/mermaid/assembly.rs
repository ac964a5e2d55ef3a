//! The chart under construction from one or more diagrams: the builder, each diagram's id
//! table, the transitions still to compile, and the dialect's warnings.

use std::collections::HashMap;

use super::ast::{Pos, Text};
use crate::dialects::LoadError;
use crate::engine::build::ChartBuilder;
use crate::engine::ir::{Dialect, Span, StateId, StateKind};
use crate::engine::lint::Lint;

/// What a diagram id names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Node {
    State(StateId),
    /// Index into [`Assembly::pseudo`].
    Fork(usize),
    Join(usize),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EdgeEnd {
    /// `[*]` of the scope the edge is written in.
    Star,
    Node(Node),
}

/// A fork or join pseudo-state: not a state of the IR, it rewires the edges through it.
#[derive(Debug, Clone)]
pub struct Pseudo {
    pub name: String,
    pub diagram: usize,
    pub pos: Pos,
}

#[derive(Debug, Clone)]
pub struct PendingEdge {
    pub diagram: usize,
    /// The scope (composite, region or diagram root) the edge is written in.
    pub scope: StateId,
    pub from: EdgeEnd,
    pub to: EdgeEnd,
    pub label: Option<Text>,
    pub pos: Pos,
    /// A mini-language label from the manifest that replaces the diagram's (must parse).
    pub override_label: Option<Override>,
    /// Synthesized `X --> [*]` for a state with no way out.
    pub implicit: bool,
}

/// A manifest `[[edge]]` label and where it is written.
#[derive(Debug, Clone)]
pub struct Override {
    pub text: String,
    pub line: u32,
    pub col: u32,
    /// Why the edge is labelled so (`why = "…"`), kept in its documentation label: a switched-off
    /// edge's reason shows where `validate` reports what it leaves unreachable.
    pub why: Option<String>,
}

pub struct DiagramInfo {
    pub file: String,
    pub root: StateId,
    pub ids: HashMap<String, Node>,
    /// Ids in first-mention order.
    pub order: Vec<String>,
}

pub struct Assembly {
    pub b: ChartBuilder,
    pub diagrams: Vec<DiagramInfo>,
    pub pseudo: Vec<Pseudo>,
    pub edges: Vec<PendingEdge>,
    pub lints: Vec<Lint>,
    /// One diagram loaded on its own: positions in lints refer to the loaded file.
    pub standalone: bool,
    /// The synthesized end state of each scope that has one.
    pub finals: HashMap<StateId, StateId>,
    /// Which diagram declared each state (for messages).
    pub origin: HashMap<StateId, (usize, Pos)>,
    /// `band:` annotations: band name → member states, in order of appearance.
    pub bands: Vec<(String, Vec<StateId>)>,
    /// The manifest being loaded (for errors in its overrides).
    pub manifest_file: String,
}

pub const FINAL: &str = "__final";
pub const START: &str = "__start";

impl Assembly {
    pub fn new(name: &str, standalone: bool) -> Assembly {
        Assembly {
            b: ChartBuilder::new(name, Dialect::Mermaid, false),
            diagrams: Vec::new(),
            pseudo: Vec::new(),
            edges: Vec::new(),
            lints: Vec::new(),
            standalone,
            finals: HashMap::new(),
            origin: HashMap::new(),
            bands: Vec::new(),
            manifest_file: String::new(),
        }
    }

    pub fn file(&self, diagram: usize) -> &str {
        &self.diagrams[diagram].file
    }

    pub fn error(&self, diagram: usize, pos: Pos, msg: impl Into<String>) -> LoadError {
        LoadError::at(self.file(diagram), pos.line, pos.col, msg)
    }

    /// A span for the IR. A standalone diagram is the loaded file; a manifest's diagrams are
    /// `Chart::files` in diagram order (see `Span::file`).
    pub fn span(&self, diagram: usize, pos: Pos) -> Option<Span> {
        let file = if self.standalone {
            0
        } else {
            u16::try_from(diagram + 1).ok()?
        };
        (pos.line > 0).then_some(Span {
            line: pos.line,
            col: pos.col,
            file,
        })
    }

    pub fn warn(&mut self, diagram: usize, code: &str, msg: impl Into<String>, pos: Pos) {
        let lint = Lint::warning(code, msg, self.span(diagram, pos));
        self.lints.push(lint);
    }

    pub fn key(&self, id: StateId) -> String {
        let k = &self.b.state(id).key;
        if k.is_empty() {
            "(root)".into()
        } else {
            k.clone()
        }
    }

    pub fn is_composite(&self, id: StateId) -> bool {
        matches!(
            self.b.state(id).kind,
            StateKind::Compound { .. } | StateKind::Parallel
        ) && !self.b.state(id).children.is_empty()
    }

    /// The end state of `scope`, created on first use.
    pub fn final_of(&mut self, scope: StateId, diagram: usize) -> Result<StateId, LoadError> {
        if let Some(f) = self.finals.get(&scope) {
            return Ok(*f);
        }
        let f = self
            .b
            .add_state(
                scope,
                FINAL,
                StateKind::Final {
                    outcome: crate::engine::ir::Outcome::Success,
                    message: None,
                    recovery: None,
                },
            )
            .map_err(|e| self.error(diagram, Pos { line: 1, col: 1 }, e.to_string()))?;
        let label = if scope == StateId::ROOT {
            "done".to_string()
        } else {
            format!("{} done", self.b.state(scope).name)
        };
        self.b.state_mut(f).label = label;
        self.finals.insert(scope, f);
        Ok(f)
    }

    /// The state a reference names: a diagram id (when `diagram` is given), an exact key, or a
    /// path whose segments match names or display labels (`consult.load_blocklist`).
    pub fn resolve(&self, text: &str, diagram: Option<usize>) -> Result<StateId, String> {
        let text = text.trim();
        if let Some(d) = diagram
            && let Some(Node::State(s)) = self.diagrams[d].ids.get(text)
        {
            return Ok(*s);
        }
        if text == "*" || text.is_empty() {
            return Ok(StateId::ROOT);
        }
        let states = &self.b.chart().states;
        if let Some(s) = states.iter().find(|s| s.key == text) {
            return Ok(s.id);
        }
        let mut frontier = vec![StateId::ROOT];
        for seg in text.split('.') {
            let mut next = Vec::new();
            for f in &frontier {
                for c in &states[f.index()].children {
                    let st = &states[c.index()];
                    if st.name == seg || st.label == seg {
                        next.push(*c);
                    }
                }
            }
            // Regions are transparent: `par.A` finds `par.r1.A`.
            if next.is_empty() {
                for f in &frontier {
                    for r in &states[f.index()].children {
                        if states[f.index()].kind == StateKind::Parallel {
                            for c in &states[r.index()].children {
                                let st = &states[c.index()];
                                if st.name == seg || st.label == seg {
                                    next.push(*c);
                                }
                            }
                        }
                    }
                }
            }
            frontier = next;
        }
        match frontier.as_slice() {
            [one] => Ok(*one),
            [] => Err(format!(
                "no state `{text}`: expected a state key such as `{}`",
                self.example_key()
            )),
            many => Err(format!(
                "`{text}` is ambiguous: it names {}",
                many.iter()
                    .map(|s| format!("`{}`", self.key(*s)))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
    }

    fn example_key(&self) -> String {
        self.b
            .chart()
            .states
            .iter()
            .rev()
            .find(|s| s.key.contains('.'))
            .or_else(|| self.b.chart().states.get(1))
            .map(|s| s.key.clone())
            .unwrap_or_else(|| "state".into())
    }
}

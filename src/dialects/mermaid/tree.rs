//! Diagram → state tree. Ids are global within a diagram (Mermaid's rule): a state belongs to
//! the scope where it is first mentioned. Composites nest, `--` splits a composite into
//! regions `r1`, `r2`…, `[*]` sets a scope's initial state or targets its synthesized
//! `__final`, and a state with no way out ends its scope (as if `X --> [*]`, with a warning).

use std::collections::HashMap;

use super::assembly::{Assembly, DiagramInfo, EdgeEnd, Node, PendingEdge, Pseudo};
use super::ast::{Body, Diagram, End, Ident, Pos, Stereo, Stmt, StmtKind, Text};
use super::fork_regions;
use super::stmt::clip;
use crate::dialects::LoadError;
use crate::engine::ir::{StateId, StateKind};

/// States per sequence (all of a manifest's diagrams together), as the workflow dialect's node
/// limit: the hook loads the whole chart on every call.
pub const MAX_STATES: usize = 2_000;

/// Levels of nesting in the chart (composites, their regions, and diagrams a manifest expands
/// into each other, together): the engine walks the tree recursively.
pub const MAX_DEPTH: usize = 64;

#[derive(Default)]
pub(super) struct Rows {
    pub(super) label: Option<Text>,
    pub(super) descs: Vec<Text>,
}

/// `[*] --> target : label` in a scope.
pub(super) type Start = (StateId, Ident, Option<Text>, Pos);

#[derive(Default)]
pub(super) struct Walk {
    pub(super) rows: HashMap<String, Rows>,
    pub(super) starts: Vec<Start>,
    pub(super) notes: Vec<(Ident, String, Pos)>,
}

impl Assembly {
    /// Add a diagram's states under `under` (the root, or the state a manifest expands).
    pub fn insert(&mut self, d: &Diagram, file: &str, under: StateId) -> Result<usize, LoadError> {
        let di = self.diagrams.len();
        self.diagrams.push(DiagramInfo {
            file: file.to_string(),
            root: under,
            ids: HashMap::new(),
            order: Vec::new(),
        });
        if d.body.regions.len() > 1 {
            return Err(self.error(
                di,
                Pos { line: 1, col: 1 },
                "`--` is only allowed inside a composite",
            ));
        }
        let d = &fork_regions::apply(d.clone()).map_err(|e| self.error(di, e.pos, e.message))?;
        let mut w = Walk::default();
        for region in &d.body.regions {
            self.walk(di, region, under, &mut w)?;
        }
        self.apply_rows(di, &mut w)?;
        self.apply_notes(di, &w)?;
        self.apply_starts(di, &w)?;
        self.ends(di)?;
        Ok(di)
    }

    fn walk(
        &mut self,
        di: usize,
        stmts: &[Stmt],
        scope: StateId,
        w: &mut Walk,
    ) -> Result<(), LoadError> {
        for stmt in stmts {
            match &stmt.kind {
                StmtKind::State {
                    id,
                    label,
                    stereo,
                    body,
                } => {
                    let node = self.mention(di, id, scope, stereo.as_ref())?;
                    if let Some(l) = label {
                        w.rows.entry(id.name.clone()).or_default().label = Some(l.clone());
                    }
                    if let Some(body) = body {
                        let Node::State(sid) = node else {
                            return Err(self.error(
                                di,
                                id.pos,
                                format!("fork/join `{}` cannot have a body", id.name),
                            ));
                        };
                        self.body(di, sid, body, w, id)?;
                    }
                }
                StmtKind::Describe { id, text } => {
                    self.mention(di, id, scope, None)?;
                    w.rows
                        .entry(id.name.clone())
                        .or_default()
                        .descs
                        .push(text.clone());
                }
                StmtKind::Edge { from, to, label } => {
                    // Mention the source first: first mention fixes document order.
                    let from_node = match from {
                        End::State(i) => Some(self.mention(di, i, scope, None)?),
                        End::Star(_) => None,
                    };
                    let to_end = match to {
                        End::Star(_) => EdgeEnd::Star,
                        End::State(i) => EdgeEnd::Node(self.mention(di, i, scope, None)?),
                    };
                    match (from, from_node) {
                        (End::Star(pos), _) => {
                            let End::State(target) = to else { continue };
                            w.starts.push((scope, target.clone(), label.clone(), *pos));
                        }
                        (End::State(_), None) => {}
                        (End::State(_), Some(from_node)) => {
                            self.edges.push(PendingEdge {
                                diagram: di,
                                scope,
                                from: EdgeEnd::Node(from_node),
                                to: to_end,
                                label: label.clone(),
                                pos: stmt.pos,
                                override_label: None,
                                implicit: false,
                            });
                        }
                    }
                }
                StmtKind::Note { target, text } => match target {
                    Some(t) => w.notes.push((t.clone(), text.clone(), stmt.pos)),
                    None => self.b.state_mut(scope).notes.push(text.clone()),
                },
            }
        }
        Ok(())
    }

    fn body(
        &mut self,
        di: usize,
        sid: StateId,
        body: &Body,
        w: &mut Walk,
        id: &Ident,
    ) -> Result<(), LoadError> {
        if matches!(self.b.state(sid).kind, StateKind::Choice) {
            return Err(self.error(
                di,
                id.pos,
                format!("choice `{}` cannot have a body", id.name),
            ));
        }
        if body.regions.len() <= 1 {
            for r in &body.regions {
                self.walk(di, r, sid, w)?;
            }
            return Ok(());
        }
        if !self.b.state(sid).children.is_empty() {
            return Err(self.error(
                di,
                id.pos,
                format!(
                    "`{}` already has states: regions (`--`) must be its whole body",
                    id.name
                ),
            ));
        }
        self.b.set_kind(sid, StateKind::Parallel);
        for (i, r) in body.regions.iter().enumerate() {
            let name = format!("r{}", i + 1);
            let region = self
                .b
                .add_state(sid, &name, StateKind::Compound { initial: sid })
                .map_err(|e| self.error(di, id.pos, e.to_string()))?;
            self.b.state_mut(region).label = format!("{} ∥ {name}", self.b.state(sid).label);
            self.walk(di, r, region, w)?;
        }
        Ok(())
    }

    /// The node an id names, created in `scope` on first mention.
    fn mention(
        &mut self,
        di: usize,
        id: &Ident,
        scope: StateId,
        stereo: Option<&(Stereo, Pos)>,
    ) -> Result<Node, LoadError> {
        if let Some(node) = self.diagrams[di].ids.get(&id.name).copied() {
            if let Some((st, pos)) = stereo {
                self.restereo(di, id, node, st, *pos)?;
            }
            return Ok(node);
        }
        let node = match stereo.map(|(s, p)| (s, *p)) {
            Some((Stereo::Fork, pos)) | Some((Stereo::Join, pos)) => {
                let fork = matches!(stereo, Some((Stereo::Fork, _)));
                self.pseudo.push(Pseudo {
                    name: id.name.clone(),
                    diagram: di,
                    pos,
                });
                let i = self.pseudo.len() - 1;
                if fork { Node::Fork(i) } else { Node::Join(i) }
            }
            other => {
                let kind = match other {
                    Some((Stereo::Choice, _)) => StateKind::Choice,
                    Some((Stereo::Unknown(n), pos)) => {
                        self.unknown_stereo(di, n, pos);
                        StateKind::Atomic
                    }
                    _ => StateKind::Atomic,
                };
                self.room_for(di, scope, id)?;
                let s = self
                    .b
                    .add_state(scope, &id.name, kind)
                    .map_err(|e| self.error(di, id.pos, e.to_string()))?;
                let span = self.span(di, id.pos);
                let st = self.b.state_mut(s);
                st.span = span;
                self.origin.insert(s, (di, id.pos));
                Node::State(s)
            }
        };
        let d = &mut self.diagrams[di];
        d.ids.insert(id.name.clone(), node);
        d.order.push(id.name.clone());
        Ok(node)
    }

    /// A stereotype on a later mention of a node: `<<choice>>` makes a plain state a choice
    /// (with a warning); a fork or join must be declared before its first use.
    fn restereo(
        &mut self,
        di: usize,
        id: &Ident,
        node: Node,
        st: &Stereo,
        pos: Pos,
    ) -> Result<(), LoadError> {
        match (st, node) {
            (Stereo::Choice, Node::State(s))
                if !matches!(self.b.state(s).kind, StateKind::Choice) =>
            {
                if !self.b.state(s).children.is_empty() {
                    return Err(self.error(
                        di,
                        pos,
                        format!("`{}` has states inside: it cannot be a choice", id.name),
                    ));
                }
                self.b.set_kind(s, StateKind::Choice);
                self.b.state_mut(s).weight = 0.0;
                self.warn(
                    di,
                    "choice-upgraded",
                    format!(
                        "`{}` is used before it is declared `<<choice>>`: it is a choice here (Mermaid would draw a plain state)",
                        id.name
                    ),
                    pos,
                );
            }
            (Stereo::Fork | Stereo::Join, Node::State(_)) => {
                return Err(self.error(
                    di,
                    pos,
                    format!(
                        "`{}` is used before it is declared a fork/join: declare it first",
                        id.name
                    ),
                ));
            }
            (Stereo::Unknown(n), _) => self.unknown_stereo(di, n, pos),
            _ => {}
        }
        Ok(())
    }

    /// Refuse a new state beyond the size and depth limits.
    fn room_for(&self, di: usize, scope: StateId, id: &Ident) -> Result<(), LoadError> {
        let chart = self.b.chart();
        if chart.states.len() > MAX_STATES {
            return Err(self.error(
                di,
                id.pos,
                format!("more than {MAX_STATES} states: a sequence may have at most {MAX_STATES}"),
            ));
        }
        if chart.depth(scope) >= MAX_DEPTH {
            return Err(self.error(
                di,
                id.pos,
                format!(
                    "`{}` is nested deeper than {MAX_DEPTH} levels",
                    clip(&id.name)
                ),
            ));
        }
        Ok(())
    }

    fn unknown_stereo(&mut self, di: usize, name: &str, pos: Pos) {
        self.warn(
            di,
            "unknown-stereotype",
            format!("unknown stereotype `<<{name}>>`: expected choice, fork or join; drawn as a plain state"),
            pos,
        );
    }
}

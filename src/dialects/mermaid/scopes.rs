//! After a diagram's statements are walked: display names and annotations, notes, each
//! scope's `[*]` entry (a `__start` choice when several guarded entries exist), its `__final`,
//! and implicit ends for states with no way out.

use std::collections::{HashMap, HashSet};

use super::annotations::{self, Annotations};
use super::assembly::{Assembly, EdgeEnd, Node, PendingEdge, START};
use super::ast::{Pos, Text};
use super::label;
use super::tree::{Start, Walk};
use crate::dialects::LoadError;
use crate::engine::ir::{StateId, StateKind};

impl Assembly {
    /// Display names and annotations from labels and descriptions.
    pub(super) fn apply_rows(&mut self, di: usize, w: &mut Walk) -> Result<(), LoadError> {
        let order = self.diagrams[di].order.clone();
        for id in order {
            let Some(Node::State(sid)) = self.diagrams[di].ids.get(&id).copied() else {
                continue;
            };
            let Some(rows) = w.rows.remove(&id) else {
                continue;
            };
            let mut texts: Vec<(String, Pos)> = Vec::new();
            for t in rows.label.iter().chain(rows.descs.iter()) {
                for r in annotations::split_rows(&t.text) {
                    texts.push((r, t.pos));
                }
            }
            let mut ann = Annotations::default();
            let mut display = None;
            for (i, (row, pos)) in texts.iter().enumerate() {
                let first_of_label = i == 0 && rows.label.is_some();
                if display.is_none() && (first_of_label || !is_annotation(row)) {
                    display = Some(row.clone());
                    continue;
                }
                annotations::annotate(row, &mut ann, true)
                    .map_err(|m| self.error(di, *pos, format!("in the label of `{id}`: {m}")))?;
            }
            self.annotate_state(sid, display, ann);
        }
        Ok(())
    }

    pub fn annotate_state(&mut self, sid: StateId, display: Option<String>, ann: Annotations) {
        if let Some(band) = &ann.band {
            match self.bands.iter_mut().find(|(n, _)| n == band) {
                Some((_, members)) => members.push(sid),
                None => self.bands.push((band.clone(), vec![sid])),
            }
        }
        let st = self.b.state_mut(sid);
        if let Some(d) = display.filter(|d| !d.is_empty()) {
            st.label = d;
        }
        if let Some((p, _)) = ann.activity {
            st.activity = Some(p);
        }
        st.policy.allow.extend(ann.allow);
        st.policy.deny.extend(ann.deny);
        if let Some(r) = ann.recovery {
            st.policy.recovery = Some(r);
        }
        if let Some(wt) = ann.weight {
            st.weight = wt;
        }
        st.notes.extend(ann.notes);
    }

    pub(super) fn apply_notes(&mut self, di: usize, w: &Walk) -> Result<(), LoadError> {
        for (target, text, pos) in &w.notes {
            let Some(Node::State(sid)) = self.diagrams[di].ids.get(&target.name).copied() else {
                self.warn(
                    di,
                    "unknown-note-target",
                    format!(
                        "note refers to `{}`, which is not a state of this diagram",
                        target.name
                    ),
                    *pos,
                );
                continue;
            };
            let mut ann = Annotations::default();
            for row in annotations::split_rows(text) {
                annotations::annotate(&row, &mut ann, false).map_err(|m| {
                    self.error(di, *pos, format!("in a note on `{}`: {m}", target.name))
                })?;
            }
            self.annotate_state(sid, None, ann);
        }
        Ok(())
    }

    /// `[*] --> A`: the scope's initial state; several guarded entries become a `__start` choice.
    pub(super) fn apply_starts(&mut self, di: usize, w: &Walk) -> Result<(), LoadError> {
        let mut by_scope: Vec<(StateId, Vec<&Start>)> = Vec::new();
        for s in &w.starts {
            match by_scope.iter_mut().find(|(sc, _)| *sc == s.0) {
                Some((_, v)) => v.push(s),
                None => by_scope.push((s.0, vec![s])),
            }
        }
        for (scope, starts) in by_scope {
            let targets = self.start_targets(di, scope, &starts)?;
            let guarded = |l: &Option<Text>| {
                l.as_ref()
                    .and_then(|t| label::parse(&t.text).ok())
                    .is_some_and(|l| l.guard.is_some() || l.is_else)
            };
            if let ([Node::State(t)], [start]) = (targets.as_slice(), starts.as_slice())
                && !guarded(&start.2)
            {
                self.b.set_initial(scope, *t);
                continue;
            }
            let unguarded = starts.iter().filter(|s| !guarded(&s.2)).count();
            if unguarded > 1 {
                let second = starts.iter().filter(|s| !guarded(&s.2)).nth(1).map(|s| s.3);
                return Err(self.error(
                    di,
                    second.unwrap_or_default(),
                    format!(
                        "a second `[*] -->` in `{}`: a scope has one initial state (guard the entries, e.g. `[*] --> A : [flag x]`, to choose between them)",
                        self.key(scope)
                    ),
                ));
            }
            let choice = self
                .b
                .add_state(scope, START, StateKind::Choice)
                .map_err(|e| self.error(di, starts[0].3, e.to_string()))?;
            self.b.state_mut(choice).label = "start".into();
            self.b.set_initial(scope, choice);
            for ((_, _, label, pos), t) in starts.iter().zip(targets) {
                self.edges.push(PendingEdge {
                    diagram: di,
                    scope,
                    from: EdgeEnd::Node(Node::State(choice)),
                    to: EdgeEnd::Node(t),
                    label: label.clone(),
                    pos: *pos,
                    override_label: None,
                    implicit: false,
                });
            }
        }
        Ok(())
    }

    /// What each `[*] -->` of one scope enters: a state of that scope, or a fork.
    fn start_targets(
        &self,
        di: usize,
        scope: StateId,
        starts: &[&Start],
    ) -> Result<Vec<Node>, LoadError> {
        let mut targets = Vec::new();
        for (_, id, _, pos) in starts {
            let t = match self.diagrams[di].ids.get(&id.name).copied() {
                Some(Node::State(t)) => t,
                // Into a fork: its targets, in the regions of a composite of this scope.
                Some(fork @ Node::Fork(_)) => {
                    targets.push(fork);
                    continue;
                }
                _ => {
                    return Err(self.error(
                        di,
                        *pos,
                        format!("`[*] --> {}` must enter a state or a fork", id.name),
                    ));
                }
            };
            if self.b.state(t).parent != Some(scope) {
                return Err(self.error(
                    di,
                    id.pos,
                    format!(
                        "`[*] --> {}` in `{}`: `{}` belongs to `{}`, not to this scope",
                        id.name,
                        self.key(scope),
                        id.name,
                        self.key(self.b.state(t).parent.unwrap_or(StateId::ROOT))
                    ),
                ));
            }
            targets.push(Node::State(t));
        }
        Ok(targets)
    }

    /// Finals for `X --> [*]`, and implicit ends for states with no way out.
    pub(super) fn ends(&mut self, di: usize) -> Result<(), LoadError> {
        let mut sources: HashSet<Node> = HashSet::new();
        let mut star_scopes = Vec::new();
        let mut into_join: HashMap<usize, Vec<StateId>> = HashMap::new();
        for e in self.edges.iter().filter(|e| e.diagram == di) {
            if let EdgeEnd::Node(n) = e.from {
                sources.insert(n);
            }
            if let (EdgeEnd::Node(Node::State(s)), EdgeEnd::Node(Node::Join(j))) = (e.from, e.to) {
                into_join.entry(j).or_default().push(s);
            }
            if e.to == EdgeEnd::Star {
                star_scopes.push(e.scope);
            }
        }
        // A join that leads on is the way out of the composite its sources share.
        for (j, from) in &into_join {
            if sources.contains(&Node::Join(*j))
                && let Ok(par) = self.common_parallel(from)
            {
                sources.insert(Node::State(par));
            }
        }
        for s in star_scopes {
            self.final_of(s, di)?;
        }
        let order = self.diagrams[di].order.clone();
        for id in order {
            let Some(node @ Node::State(sid)) = self.diagrams[di].ids.get(&id).copied() else {
                continue;
            };
            let st = self.b.state(sid);
            if sources.contains(&node)
                || matches!(st.kind, StateKind::Choice | StateKind::Final { .. })
            {
                continue;
            }
            let Some(parent) = st.parent else { continue };
            let pos = self.origin.get(&sid).map(|(_, p)| *p).unwrap_or_default();
            self.final_of(parent, di)?;
            self.edges.push(PendingEdge {
                diagram: di,
                scope: parent,
                from: EdgeEnd::Node(node),
                to: EdgeEnd::Star,
                label: None,
                pos,
                override_label: None,
                implicit: true,
            });
            self.warn(
                di,
                "implicit-end",
                format!(
                    "`{id}` has no outgoing transition: it ends its scope (as if `{id} --> [*]`)"
                ),
                pos,
            );
        }
        Ok(())
    }
}

/// A row that is an annotation rather than a display name.
fn is_annotation(row: &str) -> bool {
    let mut probe = Annotations::default();
    annotations::annotate(row, &mut probe, true).is_ok() && probe.notes.is_empty()
}

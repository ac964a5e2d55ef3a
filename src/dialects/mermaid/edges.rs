//! Edges → transitions. A labelled edge uses its trigger, guard and actions. An unlabelled edge
//! (or one whose label is prose) means, by its source:
//! - a choice: the default branch (an eventless transition, tried after the guarded ones);
//! - a composite: `done` of that composite (it reached its `[*]`);
//! - a state with an activity: completion, i.e. the activity was observed;
//! - otherwise target-triggered: taken when the target's activity is observed — and when the
//!   target has no activity either, an unlabelled edge is eventless (taken at once) while a
//!   prose one is never taken (`[false]`): prose names nothing to wait for.
//!
//! A label meant as `trigger [guard] / action` that does not parse is an error.
//!
//! A self-loop on an atomic state is targetless (the call is neutral). `<<fork>>` becomes one
//! transition into several regions; `<<join>>` routes its sources to their regions' ends and
//! leaves on `done` of the parallel state.

use std::collections::HashMap;

use super::assembly::{Assembly, EdgeEnd, Node, PendingEdge};
use super::ast::Pos;
use super::label::{self, Label};
use super::stmt::clip;
use crate::dialects::LoadError;
use crate::engine::EventKind;
use crate::engine::ir::{Guard, StateId, StateKind, Transition, Trigger};
use crate::engine::pattern::Pattern;

/// A label that is prose: its text, why it is not the mini-language, and where.
struct Prose {
    text: String,
    why: String,
    pos: Pos,
}

type EdgeLabel = (Label, Option<String>, Option<Prose>);

impl Assembly {
    /// Compile every pending edge and add the transitions to the builder.
    pub fn compile_edges(&mut self) -> Result<(), LoadError> {
        let edges = std::mem::take(&mut self.edges);
        let mut fork_targets: HashMap<usize, Vec<StateId>> = HashMap::new();
        let mut join_sources: HashMap<usize, Vec<StateId>> = HashMap::new();
        for e in &edges {
            if let (EdgeEnd::Node(Node::Fork(f)), EdgeEnd::Node(Node::State(t))) = (e.from, e.to) {
                fork_targets.entry(f).or_default().push(t);
            }
            if let (EdgeEnd::Node(Node::State(s)), EdgeEnd::Node(Node::Join(j))) = (e.from, e.to) {
                join_sources.entry(j).or_default().push(s);
            }
        }
        let mut joins: HashMap<usize, StateId> = HashMap::new();
        for (j, sources) in &join_sources {
            let p = &self.pseudo[*j];
            let par = self
                .common_parallel(sources)
                .map_err(|m| self.error(p.diagram, p.pos, format!("join `{}`: {m}", p.name)))?;
            joins.insert(*j, par);
        }
        let mut out: Vec<(Transition, bool)> = Vec::new();
        for e in &edges {
            if matches!(e.from, EdgeEnd::Node(Node::Fork(_))) {
                continue;
            }
            if let Some(t) = self.compile_one(e, &fork_targets, &joins)? {
                out.push(t);
            }
        }
        // Within a choice, guarded branches are tried before the default (Step Functions' rule).
        out.sort_by_key(|(_, default)| *default);
        for (t, _) in out {
            self.b.add_transition(t);
        }
        self.edges = edges;
        Ok(())
    }

    fn compile_one(
        &mut self,
        e: &PendingEdge,
        forks: &HashMap<usize, Vec<StateId>>,
        joins: &HashMap<usize, StateId>,
    ) -> Result<Option<(Transition, bool)>, LoadError> {
        let di = e.diagram;
        let (label, doc, prose) = self.edge_label(e)?;
        let Some((source, join_of)) = self.edge_source(e, joins) else {
            return Ok(None);
        };
        let Some(targets) = self.edge_targets(e, source, forks, joins)? else {
            return Ok(None);
        };
        self.warn_cross_composite(e, source, &targets);
        let is_choice = matches!(self.b.state(source).kind, StateKind::Choice);
        if is_choice && label.trigger.is_some() {
            self.warn(
                di,
                "choice-trigger",
                "a choice's branches are eventless: the trigger is ignored, only the guard counts",
                e.pos,
            );
        }
        let trigger = match (join_of, &label.trigger) {
            (Some(p), _) => Trigger::Done(p),
            (None, Some(p)) if !is_choice => {
                let errors = p.alts.iter().all(|a| a.kind == Some(EventKind::ErrorTool));
                if errors {
                    Trigger::Error(p.clone())
                } else {
                    Trigger::Event(p.clone())
                }
            }
            _ => self.default_trigger(source, &targets),
        };
        let never = match &prose {
            Some(p) => self.warn_prose(di, p, &trigger, is_choice),
            None => false,
        };
        let guard = match &label.guard {
            _ if never => Some(Guard::Not {
                guard: Box::new(Guard::True),
            }),
            None => None,
            Some(g) => {
                let mut res = |n: &str| self.resolve(n, Some(di));
                Some(g.to_guard(&mut res).map_err(|m| {
                    let pos = e.label.as_ref().map(|l| l.pos).unwrap_or(e.pos);
                    self.error(di, pos, m)
                })?)
            }
        };
        let self_loop = targets == [source] && !self.is_composite(source);
        let targets = if self_loop { Vec::new() } else { targets };
        if self_loop && never {
            return Ok(None);
        }
        if self_loop && trigger == Trigger::Always {
            let k = self.key(source);
            self.warn(di, "eventless-self-loop", format!("self-loop on `{k}` has no trigger and `{k}` has no activity: it would never wait, so it is kept as documentation only"), e.pos);
            return Ok(None);
        }
        let default = is_choice && guard.is_none();
        Ok(Some((
            Transition {
                source,
                targets,
                trigger,
                guard,
                actions: label.actions,
                label: doc,
                span: self.span(di, e.pos),
            },
            default,
        )))
    }

    /// The edge's source state, and the parallel state when the source is a join (whose
    /// edge leaves when that state is done). A join nothing leads to is warned about.
    fn edge_source(
        &mut self,
        e: &PendingEdge,
        joins: &HashMap<usize, StateId>,
    ) -> Option<(StateId, Option<StateId>)> {
        match e.from {
            EdgeEnd::Node(Node::State(s)) => Some((s, None)),
            EdgeEnd::Node(Node::Join(j)) => match joins.get(&j) {
                Some(p) => Some((*p, Some(*p))),
                None => {
                    let p = &self.pseudo[j];
                    let (name, pos) = (p.name.clone(), p.pos);
                    self.warn(
                        e.diagram,
                        "orphan-join",
                        format!("join `{name}` has no incoming transitions"),
                        pos,
                    );
                    None
                }
            },
            _ => None,
        }
    }

    /// Where the edge leads: a state, the scope's end, a fork's regions, or (into a join) the
    /// end of the source's region. `None`: an edge into a join nothing else makes.
    fn edge_targets(
        &mut self,
        e: &PendingEdge,
        source: StateId,
        forks: &HashMap<usize, Vec<StateId>>,
        joins: &HashMap<usize, StateId>,
    ) -> Result<Option<Vec<StateId>>, LoadError> {
        let di = e.diagram;
        Ok(Some(match e.to {
            EdgeEnd::Star => vec![self.final_of(e.scope, di)?],
            EdgeEnd::Node(Node::State(t)) => vec![t],
            EdgeEnd::Node(Node::Fork(f)) => {
                let ts = forks.get(&f).cloned().unwrap_or_default();
                let p = &self.pseudo[f];
                if ts.is_empty() {
                    return Err(self.error(
                        di,
                        p.pos,
                        format!(
                            "fork `{}` leads nowhere: add `{} --> A` edges",
                            p.name, p.name
                        ),
                    ));
                }
                if ts.len() > 1 {
                    self.common_parallel(&ts)
                        .map_err(|m| self.error(di, p.pos, format!("fork `{}`: {m}", p.name)))?;
                }
                ts
            }
            EdgeEnd::Node(Node::Join(j)) => {
                let Some(&par) = joins.get(&j) else {
                    return Ok(None);
                };
                let region = self.region_of(source, par);
                vec![self.final_of(region, di)?]
            }
        }))
    }

    /// Mermaid forbids edges between states of different composites; seed accepts them, and
    /// says so.
    fn warn_cross_composite(&mut self, e: &PendingEdge, source: StateId, targets: &[StateId]) {
        if let (EdgeEnd::Node(Node::State(_)), [t]) = (e.from, targets)
            && !e.implicit
            && matches!(e.to, EdgeEnd::Node(Node::State(_)))
            && self.b.state(source).parent != self.b.state(*t).parent
            && self.b.state(source).name != super::assembly::START
        {
            let (s, t) = (self.key(source), self.key(*t));
            self.warn(e.diagram, "cross-composite", format!("`{s} --> {t}` crosses a composite boundary (Mermaid forbids transitions between states of different composites; seed accepts it)"), e.pos);
        }
    }

    /// Warn that a prose label is documentation, saying when its edge is taken; `true` when
    /// it is never taken.
    fn warn_prose(&mut self, di: usize, p: &Prose, trigger: &Trigger, is_choice: bool) -> bool {
        let mut never = false;
        let consequence = match trigger {
            _ if is_choice => "a default branch of the choice".to_string(),
            Trigger::Done(c) => format!("taken when `{}` reaches its end", self.key(*c)),
            Trigger::Event(a) => format!("taken when `{a}` is observed"),
            // Prose must not make an edge fire by itself: a typo in a trigger would let
            // the sequence run through it at once.
            _ => {
                never = true;
                "never taken: prose names no event to wait for (give it a trigger, or a \
                 manifest `[[edge]]` label, or either state an activity)"
                    .to_string()
            }
        };
        self.warn(
            di,
            "unparsed-label",
            format!(
                "label `{}` is documentation, not `trigger [guard] / action`{}: the edge is {consequence}",
                clip(&p.text),
                p.why
            ),
            p.pos,
        );
        never
    }

    /// The label in effect (a manifest override wins), its documentation text, and whether it
    /// is prose. A label meant as the mini-language that does not parse is an error.
    fn edge_label(&mut self, e: &PendingEdge) -> Result<EdgeLabel, LoadError> {
        if let Some(o) = &e.override_label {
            let l = label::parse(&o.text).map_err(|err| {
                LoadError::at(
                    &self.manifest_file,
                    o.line,
                    o.col,
                    format!(
                        "label `{}`: {} (at character {})",
                        clip(&o.text),
                        err.message,
                        err.col + 1
                    ),
                )
            })?;
            let doc = match &o.why {
                Some(why) => format!("{}: {why}", o.text.trim()),
                None => o.text.clone(),
            };
            return Ok((l, Some(doc), None));
        }
        let Some(t) = &e.label else {
            return Ok((Label::default(), None, None));
        };
        match label::parse(&t.text) {
            Ok(l) => Ok((l, Some(t.text.clone()), None)),
            Err(err) => {
                let at = |col: usize| Pos {
                    line: t.pos.line,
                    col: t
                        .pos
                        .col
                        .saturating_add(u32::try_from(col).unwrap_or(u32::MAX)),
                };
                if let Some(meant) = label::attempted(&t.text, &err) {
                    let msg = if meant.limit {
                        meant.message
                    } else {
                        format!("label `{}`: {}", clip(&t.text), meant.message)
                    };
                    return Err(self.error(e.diagram, at(meant.col), msg));
                }
                // A label that is all prose needs no further reason.
                let why = if err.col == 0
                    && err.message == format!("`{}` is not an event name", t.text.trim())
                {
                    String::new()
                } else {
                    format!(" ({})", err.message)
                };
                let prose = Prose {
                    text: t.text.clone(),
                    why,
                    pos: at(err.col),
                };
                Ok((Label::default(), Some(t.text.clone()), Some(prose)))
            }
        }
    }

    /// The trigger of an edge with no trigger of its own (see the module docs).
    fn default_trigger(&self, source: StateId, targets: &[StateId]) -> Trigger {
        let st = self.b.state(source);
        if matches!(st.kind, StateKind::Choice) {
            return Trigger::Always;
        }
        if self.is_composite(source) {
            return Trigger::Done(source);
        }
        if let Some(a) = &st.activity {
            return Trigger::Event(a.clone());
        }
        if let [t] = targets
            && let Some(a) = self.entry_activity(*t)
        {
            return Trigger::Event(a);
        }
        Trigger::Always
    }

    /// The activity of a state, or of the state its default entry leads to.
    pub fn entry_activity(&self, mut id: StateId) -> Option<Pattern> {
        let n = self.b.chart().states.len();
        for _ in 0..n {
            let st = self.b.state(id);
            if let Some(a) = &st.activity {
                return Some(a.clone());
            }
            match st.kind {
                StateKind::Compound { initial } if !st.children.is_empty() => {
                    id = if initial.index() < n && st.children.contains(&initial) {
                        initial
                    } else {
                        st.children[0]
                    };
                }
                _ => return None,
            }
        }
        None
    }

    /// The parallel state whose distinct regions hold all of `states`.
    pub(super) fn common_parallel(&self, states: &[StateId]) -> Result<StateId, String> {
        let chart = self.b.chart();
        let first = states.first().copied().ok_or("no states")?;
        let mut cur = chart.state(first).parent;
        while let Some(p) = cur {
            if chart.state(p).kind == StateKind::Parallel
                && states
                    .iter()
                    .all(|s| chart.is_descendant_or_self(*s, p) && *s != p)
            {
                let mut regions: Vec<StateId> =
                    states.iter().map(|s| self.region_of(*s, p)).collect();
                regions.sort();
                regions.dedup();
                if regions.len() == states.len() {
                    return Ok(p);
                }
                return Err(
                    "its states must lie in different regions of one parallel state".into(),
                );
            }
            cur = chart.state(p).parent;
        }
        Err(format!(
            "{} must lie in different regions (`--`) of one composite state",
            states
                .iter()
                .map(|s| format!("`{}`", self.key(*s)))
                .collect::<Vec<_>>()
                .join(", ")
        ))
    }

    fn region_of(&self, mut s: StateId, parallel: StateId) -> StateId {
        while let Some(p) = self.b.state(s).parent {
            if p == parallel {
                return s;
            }
            s = p;
        }
        s
    }
}

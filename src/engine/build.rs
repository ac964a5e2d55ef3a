//! A builder the dialect loaders use to assemble a chart. It computes keys, fills default
//! initial states, and renumbers states into document order (pre-order), which the step's
//! conflict resolution and exit order rely on.

use std::collections::{BTreeMap, HashMap};

use super::ir::{
    Band, Chart, Dialect, Guard, Policy, Settings, State, StateId, StateKind, Transition, Trigger,
};

const UNSET: StateId = StateId(u32::MAX);

/// The most states a chart may have. A sequence is read by every hook call; this keeps the
/// largest legal one well under a second to load and lint (a 50,000-step chain is legal).
pub const MAX_STATES: usize = 100_000;
/// The most transitions a chart may have: a 1,000-tool file where every tool may follow every
/// other (a million transitions) took seconds and most of a gigabyte to load.
pub const MAX_TRANSITIONS: usize = 100_000;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BuildError {
    #[error("state `{0}` is declared twice in the same scope")]
    Duplicate(String),
    #[error("compound state `{0}` names initial state `{1}`, which is not its child")]
    BadInitial(String, String),
    #[error("{count} {what}: a sequence may have at most {max}")]
    TooLarge {
        what: &'static str,
        count: usize,
        max: usize,
    },
}

impl BuildError {
    /// The size check every dialect shares, so a loader can also stop early while it counts.
    pub fn check_size(states: usize, transitions: usize) -> Result<(), BuildError> {
        if states > MAX_STATES {
            return Err(BuildError::TooLarge {
                what: "states",
                count: states,
                max: MAX_STATES,
            });
        }
        if transitions > MAX_TRANSITIONS {
            return Err(BuildError::TooLarge {
                what: "transitions",
                count: transitions,
                max: MAX_TRANSITIONS,
            });
        }
        Ok(())
    }
}

pub struct ChartBuilder {
    chart: Chart,
    /// (parent, name) → child, so adding states stays linear on huge charts.
    index: HashMap<(StateId, String), StateId>,
}

impl ChartBuilder {
    /// A chart whose root is a compound state (or a parallel one, for region-based dialects).
    pub fn new(name: &str, dialect: Dialect, parallel_root: bool) -> ChartBuilder {
        let root = State {
            id: StateId::ROOT,
            name: name.to_string(),
            key: String::new(),
            label: name.to_string(),
            parent: None,
            children: Vec::new(),
            kind: if parallel_root {
                StateKind::Parallel
            } else {
                StateKind::Compound { initial: UNSET }
            },
            activity: None,
            call: None,
            share: None,
            policy: Policy::default(),
            policies: Vec::new(),
            enforcement: None,
            weight: 1.0,
            complete_on_entry: false,
            fill: None,
            on_entry: Vec::new(),
            notes: Vec::new(),
            span: None,
        };
        ChartBuilder {
            chart: Chart {
                name: name.to_string(),
                description: String::new(),
                dialect,
                states: vec![root],
                transitions: Vec::new(),
                readers: Vec::new(),
                neutral: Vec::new(),
                aliases: BTreeMap::new(),
                settings: Settings::default(),
                bands: Vec::new(),
                floors: Vec::new(),
                vars: BTreeMap::new(),
                files: Vec::new(),
                each: None,
            },
            index: HashMap::new(),
        }
    }

    pub fn chart_mut(&mut self) -> &mut Chart {
        &mut self.chart
    }

    pub fn chart(&self) -> &Chart {
        &self.chart
    }

    /// Add a state under `parent`. Compound states get their initial child from
    /// [`ChartBuilder::set_initial`] or, failing that, their first child.
    pub fn add_state(
        &mut self,
        parent: StateId,
        name: &str,
        kind: StateKind,
    ) -> Result<StateId, BuildError> {
        if self.child_named(parent, name).is_some() {
            return Err(BuildError::Duplicate(name.to_string()));
        }
        let id = StateId(self.chart.states.len() as u32);
        let parent_key = &self.chart.states[parent.index()].key;
        let key = if parent_key.is_empty() {
            name.to_string()
        } else {
            format!("{parent_key}.{name}")
        };
        let weight = match kind {
            StateKind::Choice | StateKind::Final { .. } => 0.0,
            _ => 1.0,
        };
        let kind = match kind {
            StateKind::Compound { .. } => StateKind::Compound { initial: UNSET },
            k => k,
        };
        self.chart.states.push(State {
            id,
            name: name.to_string(),
            key,
            label: name.to_string(),
            parent: Some(parent),
            children: Vec::new(),
            kind,
            activity: None,
            call: None,
            share: None,
            policy: Policy::default(),
            policies: Vec::new(),
            enforcement: None,
            weight,
            complete_on_entry: false,
            fill: None,
            on_entry: Vec::new(),
            notes: Vec::new(),
            span: None,
        });
        self.chart.states[parent.index()].children.push(id);
        self.index.insert((parent, name.to_string()), id);
        // A state that gains children becomes compound.
        if matches!(self.chart.states[parent.index()].kind, StateKind::Atomic) {
            self.chart.states[parent.index()].kind = StateKind::Compound { initial: UNSET };
        }
        Ok(id)
    }

    pub fn child_named(&self, parent: StateId, name: &str) -> Option<StateId> {
        self.index.get(&(parent, name.to_string())).copied()
    }

    pub fn state_mut(&mut self, id: StateId) -> &mut State {
        &mut self.chart.states[id.index()]
    }

    pub fn state(&self, id: StateId) -> &State {
        &self.chart.states[id.index()]
    }

    pub fn set_initial(&mut self, compound: StateId, initial: StateId) {
        if let StateKind::Compound { initial: i } = &mut self.chart.states[compound.index()].kind {
            *i = initial;
        }
    }

    pub fn set_kind(&mut self, id: StateId, kind: StateKind) {
        self.chart.states[id.index()].kind = kind;
    }

    pub fn add_transition(&mut self, t: Transition) -> usize {
        self.chart.transitions.push(t);
        self.chart.transitions.len() - 1
    }

    pub fn add_band(&mut self, band: Band) {
        self.chart.bands.push(band);
    }

    /// The chart as `finish` would return it now, leaving the builder as it is (a loader that
    /// needs to know what is reachable before it adds more).
    pub fn preview(&self) -> Result<Chart, BuildError> {
        ChartBuilder {
            chart: self.chart.clone(),
            index: HashMap::new(),
        }
        .finish()
    }

    /// Fill defaults and renumber states into document order.
    pub fn finish(mut self) -> Result<Chart, BuildError> {
        BuildError::check_size(self.chart.states.len(), self.chart.transitions.len())?;
        for i in 0..self.chart.states.len() {
            let (kind, children, name) = {
                let s = &self.chart.states[i];
                (s.kind.clone(), s.children.clone(), s.key.clone())
            };
            if let StateKind::Compound { initial } = kind {
                if children.is_empty() {
                    self.chart.states[i].kind = StateKind::Atomic;
                } else if initial == UNSET {
                    self.chart.states[i].kind = StateKind::Compound {
                        initial: children[0],
                    };
                } else if !children.contains(&initial) {
                    let init_key = self.chart.states[initial.index()].key.clone();
                    return Err(BuildError::BadInitial(name, init_key));
                }
            }
        }
        Ok(renumber(self.chart))
    }
}

fn renumber(mut chart: Chart) -> Chart {
    let n = chart.states.len();
    let mut order = Vec::with_capacity(n);
    let mut stack = vec![StateId::ROOT];
    while let Some(s) = stack.pop() {
        order.push(s);
        for c in chart.states[s.index()].children.iter().rev() {
            stack.push(*c);
        }
    }
    let mut map = vec![StateId::ROOT; n];
    for (new, old) in order.iter().enumerate() {
        map[old.index()] = StateId(new as u32);
    }
    let m = |id: StateId| map[id.index()];
    let old_states = std::mem::take(&mut chart.states);
    let mut states: Vec<Option<State>> = old_states.into_iter().map(Some).collect();
    for old in &order {
        if let Some(mut s) = states[old.index()].take() {
            s.id = m(s.id);
            s.parent = s.parent.map(m);
            s.children = s.children.iter().map(|c| m(*c)).collect();
            if let StateKind::Compound { initial } = &mut s.kind {
                *initial = m(*initial);
            }
            chart.states.push(s);
        }
    }
    for t in &mut chart.transitions {
        t.source = m(t.source);
        t.targets = t.targets.iter().map(|x| m(*x)).collect();
        if let Trigger::Done(x) = &mut t.trigger {
            *x = m(*x);
        }
        if let Some(g) = &mut t.guard {
            remap_guard(g, &m);
        }
    }
    for b in &mut chart.bands {
        b.states = b.states.iter().map(|s| m(*s)).collect();
    }
    for f in &mut chart.floors {
        f.at = m(f.at);
        remap_guard(&mut f.when, &m);
    }
    // Document order for transitions: by source position, stable within a source.
    chart.transitions.sort_by_key(|t| t.source);
    chart
}

fn remap_guard(g: &mut Guard, m: &dyn Fn(StateId) -> StateId) {
    match g {
        Guard::All { of } | Guard::Any { of } => of.iter_mut().for_each(|g| remap_guard(g, m)),
        Guard::Not { guard } => remap_guard(guard, m),
        Guard::In { state } => *state = m(*state),
        _ => {}
    }
}

//! What a path search knows of the sequence's data at a point ahead of the session: the flags
//! and variables the transitions on the way set, and which values only the calls on the way
//! decide (a variable set from a call's input or result). Guards are read three-valued: a
//! guard reading such a value may go either way, so the search keeps the transition; one that
//! is false for what is known is no way forward.
//!
//! Only the data some guard reads (or some set value copies) is carried: the rest cannot
//! change which transitions fire, and carrying it would only multiply the search's nodes.

use std::collections::{BTreeMap, BTreeSet};
use std::hash::{BuildHasher, Hash, Hasher};

use foldhash::fast::{FixedState, FoldHasher};

use serde_json::Value;

use crate::engine::StateId;
use crate::engine::guard::{self, compare, var_path};
use crate::engine::interpolate;
use crate::engine::ir::{Action, Chart, Guard, InputMatcher};
use crate::engine::pattern::input_matches;
use crate::engine::snapshot::Snapshot;

/// The flags and variables whose values can decide a guard.
pub(crate) struct Relevant {
    flags: BTreeSet<String>,
    vars: BTreeSet<String>,
    /// Some action rolls back to a checkpoint: checkpoints are data too.
    rollback: bool,
}

impl Relevant {
    pub(crate) fn of(chart: &Chart) -> Relevant {
        let mut rel = Relevant {
            flags: BTreeSet::new(),
            vars: BTreeSet::new(),
            rollback: false,
        };
        let policies = chart.states.iter().flat_map(|s| s.all_policies());
        let guards = chart
            .transitions
            .iter()
            .filter_map(|t| t.guard.as_ref())
            .chain(policies.filter_map(|p| p.when.as_ref()));
        for g in guards {
            rel.read(g);
        }
        for a in chart.all_actions() {
            match a {
                // A value copied from another variable carries that variable's value on.
                Action::SetVar { value, .. }
                | Action::AppendVar { value, .. }
                | Action::MergeVar { value, .. } => {
                    for name in references(value) {
                        rel.name(&name);
                    }
                }
                Action::Rollback { .. } => rel.rollback = true,
                _ => {}
            }
        }
        rel
    }

    /// Action `a` changes data this search carries (others are skipped before they run).
    pub(crate) fn keeps(&self, a: &Action) -> bool {
        match a {
            Action::SetFlag { name, .. } => self.flags.contains(name),
            Action::SetVar { name, .. }
            | Action::SetVarFromInput { name, .. }
            | Action::SetVarFromResult { name, .. }
            | Action::AppendVar { name, .. }
            | Action::MergeVar { name, .. }
            | Action::CountVar { name, .. }
            | Action::Remember { name, .. } => self.vars.contains(root(name)),
            Action::Checkpoint { .. } | Action::Rollback { .. } => self.rollback,
            Action::Note { .. } => false,
        }
    }

    fn read(&mut self, g: &Guard) {
        match g {
            Guard::All { of } | Guard::Any { of } => of.iter().for_each(|g| self.read(g)),
            Guard::Not { guard } => self.read(guard),
            Guard::Flag { name } => {
                self.flags.insert(name.clone());
            }
            Guard::Var { name, .. }
            | Guard::Count { name, .. }
            | Guard::InList { var: name, .. } => {
                self.vars.insert(root(name).to_string());
            }
            Guard::Input {
                matcher: InputMatcher::Glob(g),
                ..
            } => {
                for name in references(&Value::String(g.clone())) {
                    self.name(&name);
                }
            }
            _ => {}
        }
    }

    fn name(&mut self, name: &str) {
        match name.strip_prefix("flags.") {
            Some(flag) => self.flags.insert(flag.to_string()),
            None => self.vars.insert(root(name).to_string()),
        };
    }
}

pub(crate) use crate::engine::FxMap;

/// The flags (as `flags.<name>`) and variables a guard reads.
pub(crate) fn read_by(g: &Guard) -> BTreeSet<String> {
    let mut rel = Relevant {
        flags: BTreeSet::new(),
        vars: BTreeSet::new(),
        rollback: false,
    };
    rel.read(g);
    let flags = rel.flags.into_iter().map(|f| format!("flags.{f}"));
    flags.chain(rel.vars).collect()
}

/// The flags (as `flags.<name>`) and variables actions set.
pub(crate) fn written_by(actions: &[Action]) -> BTreeSet<String> {
    actions
        .iter()
        .filter_map(|a| match a {
            Action::SetFlag { name, .. } => Some(format!("flags.{name}")),
            Action::SetVar { name, .. }
            | Action::SetVarFromInput { name, .. }
            | Action::SetVarFromResult { name, .. }
            | Action::AppendVar { name, .. }
            | Action::MergeVar { name, .. }
            | Action::CountVar { name, .. } => Some(root(name).to_string()),
            _ => None,
        })
        .collect()
}

/// The variable a dotted path starts from (`config` of `config.sources.0`).
fn root(name: &str) -> &str {
    name.split('.').next().unwrap_or(name).trim()
}

/// The names `${…}` references in a value's strings.
fn references(v: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let mut strings = vec![v];
    while let Some(v) = strings.pop() {
        match v {
            Value::String(s) => {
                let mut rest = s.as_str();
                while let Some(i) = rest.find("${") {
                    let after = &rest[i + 2..];
                    let Some(end) = after.find('}') else { break };
                    out.push(after[..end].trim().to_string());
                    rest = &after[end + 1..];
                }
            }
            Value::Array(a) => strings.extend(a),
            Value::Object(o) => strings.extend(o.values()),
            _ => {}
        }
    }
    out
}

#[derive(Debug, Clone, PartialEq)]
struct Saved {
    flags: BTreeMap<String, bool>,
    vars: BTreeMap<String, Value>,
    unknown: BTreeSet<String>,
}

/// The data at one point of a path.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Data {
    pub flags: BTreeMap<String, bool>,
    pub vars: BTreeMap<String, Value>,
    /// Variables the calls on the way decide (their input or result): unknown here.
    unknown: BTreeSet<String>,
    checkpoints: BTreeMap<String, Saved>,
}

impl Data {
    /// The session's data as it is now, as far as guards read it.
    pub(crate) fn now(snap: &Snapshot, rel: &Relevant) -> Data {
        let checkpoints = if rel.rollback {
            snap.checkpoints
                .iter()
                .map(|(k, c)| {
                    let saved = Saved {
                        flags: keep(&c.flags, &rel.flags),
                        vars: keep(&c.vars, &rel.vars),
                        unknown: BTreeSet::new(),
                    };
                    (k.clone(), saved)
                })
                .collect()
        } else {
            BTreeMap::new()
        };
        Data {
            flags: keep(&snap.flags, &rel.flags),
            vars: keep(&snap.vars, &rel.vars),
            unknown: BTreeSet::new(),
            checkpoints,
        }
    }

    /// The data after `actions` ran, with the values a call decides marked unknown.
    pub(crate) fn after(&self, actions: &[Action], rel: &Relevant) -> Data {
        let mut d = self.clone();
        for a in actions {
            d.apply(a, rel);
        }
        d
    }

    fn apply(&mut self, a: &Action, rel: &Relevant) {
        let tracked = |name: &str| rel.vars.contains(root(name));
        match a {
            Action::SetFlag { name, value } if rel.flags.contains(name) => {
                self.flags.insert(name.clone(), *value);
            }
            Action::SetVar { name, value } if tracked(name) => {
                if self.reads_unknown(value) {
                    self.forget(name);
                } else {
                    let v = interpolate::value(value, &self.scope());
                    self.vars.insert(name.clone(), v);
                    self.unknown.remove(name);
                }
            }
            Action::SetVarFromInput { name, .. }
            | Action::SetVarFromResult { name, .. }
            | Action::CountVar { name, .. }
            | Action::Remember { name, .. }
                if tracked(name) =>
            {
                self.forget(name);
            }
            Action::AppendVar { name, value } | Action::MergeVar { name, value }
                if tracked(name) =>
            {
                if self.unknown.contains(name) || self.reads_unknown(value) {
                    self.forget(name);
                    return;
                }
                let value = interpolate::value(value, &self.scope());
                let append = matches!(a, Action::AppendVar { .. });
                let slot = self.vars.entry(name.clone()).or_insert(if append {
                    Value::Array(Vec::new())
                } else {
                    Value::Object(Default::default())
                });
                match (append, slot, value) {
                    (true, Value::Array(items), v) => items.push(v),
                    (true, other, v) => *other = Value::Array(vec![other.clone(), v]),
                    (false, Value::Object(dst), Value::Object(src)) => dst.extend(src),
                    (false, slot, v) => *slot = v,
                }
            }
            Action::Checkpoint { name } if rel.rollback => {
                let saved = Saved {
                    flags: self.flags.clone(),
                    vars: self.vars.clone(),
                    unknown: self.unknown.clone(),
                };
                self.checkpoints.insert(name.clone(), saved);
            }
            Action::Rollback { name } => {
                if let Some(s) = self.checkpoints.get(name).cloned() {
                    (self.flags, self.vars, self.unknown) = (s.flags, s.vars, s.unknown);
                }
            }
            _ => {}
        }
    }

    /// A hash of the data, so equal data found on two ways is kept once.
    pub(crate) fn fingerprint(&self) -> u64 {
        let mut h = FixedState::default().build_hasher();
        self.flags.hash(&mut h);
        self.vars.len().hash(&mut h);
        for (k, v) in &self.vars {
            k.hash(&mut h);
            hash_value(v, &mut h);
        }
        self.unknown.hash(&mut h);
        for (k, c) in &self.checkpoints {
            k.hash(&mut h);
            c.flags.hash(&mut h);
            c.vars.iter().for_each(|(k, v)| {
                k.hash(&mut h);
                hash_value(v, &mut h);
            });
            c.unknown.hash(&mut h);
        }
        h.finish()
    }

    fn forget(&mut self, name: &str) {
        self.vars.remove(name);
        self.unknown.insert(name.to_string());
    }

    fn reads_unknown(&self, v: &Value) -> bool {
        !self.unknown.is_empty() && references(v).iter().any(|r| self.unknown.contains(root(r)))
    }

    fn scope(&self) -> interpolate::Scope<'_> {
        interpolate::Scope {
            vars: &self.vars,
            flags: &self.flags,
        }
    }

    /// `g` for this data and the configuration `active` (sorted): `None` when it depends on
    /// what is not known yet (a call's input, a value a call decides, a reader's fact).
    /// `input` is the call's, when one is judged.
    pub(crate) fn eval(
        &self,
        g: &Guard,
        active: &[StateId],
        input: Option<&Value>,
    ) -> Option<bool> {
        let eval = |g: &Guard| self.eval(g, active, input);
        match g {
            Guard::True => Some(true),
            Guard::All { of } => {
                let mut all = Some(true);
                for part in of {
                    match eval(part) {
                        Some(false) => return Some(false),
                        None => all = None,
                        Some(true) => {}
                    }
                }
                all
            }
            Guard::Any { of } => {
                let mut any = Some(false);
                for part in of {
                    match eval(part) {
                        Some(true) => return Some(true),
                        None => any = None,
                        Some(false) => {}
                    }
                }
                any
            }
            Guard::Not { guard } => eval(guard).map(|b| !b),
            Guard::Flag { name } => Some(self.flags.get(name).copied().unwrap_or(false)),
            Guard::Var { name, op, value } => {
                let v = self.var(name)?;
                Some(compare(v.unwrap_or(&Value::Null), *op, value))
            }
            Guard::Count { name, op, value } => {
                let len = match self.var(name)? {
                    Some(Value::Array(a)) => a.len() as f64,
                    Some(Value::Object(o)) => o.len() as f64,
                    Some(Value::String(s)) => s.chars().count() as f64,
                    _ => 0.0,
                };
                Some(compare(&Value::from(len), *op, &Value::from(*value)))
            }
            Guard::In { state } => Some(active.binary_search(state).is_ok()),
            // Readers watch what the work itself changes (files a call writes, a system the
            // session runs): a fact that blocks a transition now may hold once the calls on
            // the way are made, so a guard reading one may go either way.
            // So does what a call's result says: it is known once the call has run.
            Guard::FileExists { .. } | Guard::Reader { .. } | Guard::Result { .. } => None,
            Guard::InList { pointer, var } => {
                let Some(v) = input?.pointer(pointer) else {
                    return Some(false);
                };
                let text = match v {
                    Value::String(s) => s.clone(),
                    Value::Number(_) | Value::Bool(_) => v.to_string(),
                    _ => return Some(false),
                };
                let list = self.var(var)?;
                Some(list.is_some_and(|l| guard::list_covers(l, &text)))
            }
            Guard::Input { pointer, matcher } => {
                let input = input?;
                match matcher {
                    InputMatcher::Glob(g) if g.contains("${") => {
                        if self.reads_unknown(&Value::String(g.clone())) {
                            return None;
                        }
                        let now = InputMatcher::Glob(interpolate::glob(g, &self.scope()));
                        Some(input_matches(input, pointer, &now))
                    }
                    m => Some(input_matches(input, pointer, m)),
                }
            }
        }
    }

    /// A variable's value (`Some(None)`: unset), or `None` when the way here left it unknown.
    fn var(&self, name: &str) -> Option<Option<&Value>> {
        if self.unknown.contains(root(name)) {
            return None;
        }
        Some(var_path(&self.vars, name))
    }

    /// `snap` with this data in place of its own (for the policies a state has here).
    pub(crate) fn as_snapshot(&self, snap: &Snapshot, active: Vec<StateId>) -> Snapshot {
        let mut sim = snap.clone();
        sim.flags
            .extend(self.flags.iter().map(|(k, v)| (k.clone(), *v)));
        for name in &self.unknown {
            sim.vars.remove(name);
        }
        sim.vars
            .extend(self.vars.iter().map(|(k, v)| (k.clone(), v.clone())));
        sim.active = active;
        sim
    }
}

fn hash_value(v: &Value, h: &mut FoldHasher) {
    match v {
        Value::Null => 0u8.hash(h),
        Value::Bool(b) => (1u8, b).hash(h),
        Value::Number(n) => (2u8, n.as_f64().map(f64::to_bits), n.as_i64()).hash(h),
        Value::String(s) => (3u8, s).hash(h),
        Value::Array(a) => {
            (4u8, a.len()).hash(h);
            a.iter().for_each(|v| hash_value(v, h));
        }
        Value::Object(o) => {
            (5u8, o.len()).hash(h);
            for (k, v) in o {
                k.hash(h);
                hash_value(v, h);
            }
        }
    }
}

/// The entries of `all` named in `names` (variables by the name their path starts from).
fn keep<V: Clone>(all: &BTreeMap<String, V>, names: &BTreeSet<String>) -> BTreeMap<String, V> {
    all.iter()
        .filter(|(k, _)| names.contains(k.as_str()) || names.contains(root(k)))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

//! Transitions that can never be taken, for `seed validate`: switched off (`[false]`), a guard
//! no value the sequence ever gives its variables and flags can satisfy, or shadowed in its
//! state by an earlier one on the same trigger with no condition (or the same condition). The
//! reachability lints skip them, so a state reachable only through them is reported, with why.

use std::collections::BTreeMap;

use serde_json::Value;

use super::Lint;
use crate::engine::FxMap;
use crate::engine::guard::compare;
use crate::engine::ir::{Action, CmpOp, Guard, StateId, StateKind, Trigger};
use crate::engine::machine::Machine;

/// A hash of `g` that equal guards share: numbers by value (`1` and `1.0` alike, `-0.0` as
/// `0.0`), objects whatever their key order, as `==` compares them.
fn guard_hash(g: &Guard) -> u64 {
    use std::hash::{BuildHasher, Hash, Hasher};
    fn value(v: &Value, h: &mut impl Hasher) {
        match v {
            Value::Null => 0u8.hash(h),
            Value::Bool(b) => (1u8, b).hash(h),
            Value::Number(n) => (2u8, n.as_f64().map(|f| (f + 0.0).to_bits())).hash(h),
            Value::String(s) => (3u8, s).hash(h),
            Value::Array(a) => {
                (4u8, a.len()).hash(h);
                a.iter().for_each(|v| value(v, h));
            }
            Value::Object(o) => {
                let entries = o.iter().fold(0u64, |acc, (k, v)| {
                    let mut e = foldhash::fast::FixedState::default().build_hasher();
                    k.hash(&mut e);
                    value(v, &mut e);
                    acc.wrapping_add(e.finish())
                });
                (5u8, o.len(), entries).hash(h);
            }
        }
    }
    fn guard(g: &Guard, h: &mut impl Hasher) {
        std::mem::discriminant(g).hash(h);
        match g {
            Guard::True => {}
            Guard::All { of } | Guard::Any { of } => {
                of.len().hash(h);
                of.iter().for_each(|x| guard(x, h));
            }
            Guard::Not { guard: x } => guard(x, h),
            Guard::Flag { name } | Guard::FileExists { reader: name } => name.hash(h),
            Guard::Var { name, op, value: v }
            | Guard::Reader { name, op, value: v }
            | Guard::Result {
                pointer: name,
                op,
                value: v,
            } => {
                (name, *op as u8).hash(h);
                value(v, h);
            }
            Guard::InList { pointer, var } => (pointer, var).hash(h),
            Guard::Count { name, op, value: v } => {
                (name, *op as u8, (*v + 0.0).to_bits()).hash(h);
            }
            Guard::In { state } => state.hash(h),
            Guard::Input { pointer, matcher } => (pointer, matcher).hash(h),
        }
    }
    let mut h = foldhash::fast::FixedState::default().build_hasher();
    guard(g, &mut h);
    h.finish()
}

/// Why a transition never fires.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Dead {
    /// `[false]`: kept as documentation.
    Off,
    /// Its guard never holds, and why.
    Impossible(String),
    /// An earlier transition of the same state on the same trigger always wins.
    Shadowed { by: usize, same_guard: bool },
}

/// The values a variable or flag can ever hold: its initial value and what actions set.
/// `None`: anything (set from input, a result, an interpolated text, a merge…).
#[derive(Default)]
struct Values {
    vars: BTreeMap<String, Option<Vec<Value>>>,
    flags: BTreeMap<String, (bool, bool)>,
}

impl Values {
    fn of(m: &Machine) -> Values {
        let chart = &m.chart;
        let mut v = Values::default();
        for (k, val) in &chart.vars {
            match k.strip_prefix("flags.") {
                Some(f) => v.flag(f, val.as_bool() == Some(true)),
                None => v.var(k, Some(val.clone())),
            }
        }
        for a in chart.all_actions() {
            match a {
                Action::SetFlag { name, value } => v.flag(name, *value),
                Action::SetVar { name, value } => {
                    let literal = !value.to_string().contains("${") && !name.contains('.');
                    v.var(name, literal.then(|| value.clone()));
                }
                Action::SetVarFromInput { name, .. }
                | Action::SetVarFromResult { name, .. }
                | Action::AppendVar { name, .. }
                | Action::MergeVar { name, .. }
                | Action::CountVar { name, .. }
                | Action::Remember { name, .. } => v.var(name, None),
                _ => {}
            }
        }
        v
    }

    fn flag(&mut self, name: &str, value: bool) {
        let e = self.flags.entry(name.to_string()).or_insert((false, false));
        if value {
            e.0 = true;
        } else {
            e.1 = true;
        }
    }

    /// Record a value of `name` (or of the variable a dotted path writes into); `None`: any.
    fn var(&mut self, name: &str, value: Option<Value>) {
        let head = name.split('.').next().unwrap_or(name);
        let slot = self
            .vars
            .entry(head.to_string())
            .or_insert_with(|| Some(Vec::new()));
        match (slot.as_mut(), value) {
            (Some(list), Some(v)) if head == name => {
                if !list.contains(&v) {
                    list.push(v);
                }
            }
            _ => *slot = None,
        }
    }

    /// `None` when `g` (negated when `neg`) can hold; else why it never does.
    fn never(&self, g: &Guard, neg: bool) -> Option<String> {
        match g {
            Guard::True => neg.then(|| "it is `false`".to_string()),
            Guard::Not { guard } => self.never(guard, !neg),
            // `all` holds when each part can (a close enough reading: parts rarely exclude
            // each other); negated, it holds when one part can fail.
            Guard::All { of } if !neg => of.iter().find_map(|x| self.never(x, false)),
            Guard::Any { of } if neg => of.iter().find_map(|x| self.never(x, true)),
            Guard::All { of } | Guard::Any { of } => {
                let why: Vec<String> = of
                    .iter()
                    .map(|x| self.never(x, neg))
                    .collect::<Option<_>>()?;
                Some(why.join(", and "))
            }
            Guard::Flag { name } => {
                // A flag nothing declares or sets is another lint's finding (undefined-flag).
                let (set, cleared) = *self.flags.get(name)?;
                match neg {
                    false if !set => Some(format!("flag `{name}` is never set")),
                    true if !cleared => Some(format!("flag `{name}` is always set")),
                    _ => None,
                }
            }
            Guard::Var { name, op, value } => {
                let eq = match (op, neg) {
                    (CmpOp::Eq, false) | (CmpOp::Ne, true) => true,
                    (CmpOp::Ne, false) | (CmpOp::Eq, true) => false,
                    _ => return None,
                };
                let values = self.vars.get(name)?.as_ref()?;
                let holds = values
                    .iter()
                    .any(|v| compare(v, if eq { CmpOp::Eq } else { CmpOp::Ne }, value));
                if holds {
                    return None;
                }
                let list: Vec<String> = values.iter().map(Value::to_string).collect();
                Some(if eq {
                    format!(
                        "nothing gives `{name}` the value {value} (it is only ever {})",
                        list.join(", ")
                    )
                } else {
                    format!("`{name}` is always {value}")
                })
            }
            _ => None,
        }
    }
}

impl Machine {
    /// Per transition: why it never fires, if it never does.
    pub(crate) fn dead_transitions(&self) -> Vec<Option<Dead>> {
        let chart = &self.chart;
        let values = Values::of(self);
        let mut dead: Vec<Option<Dead>> = chart
            .transitions
            .iter()
            .map(|t| match &t.guard {
                Some(g) if g.is_never() => Some(Dead::Off),
                Some(g) => values.never(g, false).map(Dead::Impossible),
                None => None,
            })
            .collect();
        // Within one state, in the order the step tries them: the first live transition on a
        // trigger with no condition (or with a given condition) wins over every later one.
        // Looked up by trigger and condition, not by scanning the earlier ones: a step with
        // 100k ways out stays linear.
        for list in &self.candidates {
            // Per trigger: the first live unguarded transition, and the first per guard (by
            // the guard's hash, compared in full).
            type Seen = (Option<(usize, usize)>, FxMap<u64, Vec<(usize, usize)>>);
            let mut first: FxMap<&Trigger, Seen> = FxMap::default();
            for (at, &ti) in list.iter().enumerate() {
                if dead[ti].is_some() {
                    continue;
                }
                let t = &chart.transitions[ti];
                let (unguarded, guarded) = first.entry(&t.trigger).or_default();
                let same_guard = t.guard.as_ref().and_then(|g| {
                    guarded
                        .get(&guard_hash(g))?
                        .iter()
                        .copied()
                        .find(|&(_, e)| chart.transitions[e].guard.as_ref() == Some(g))
                });
                // The earlier of the two, as a scan in the step's order would meet them.
                let earlier = match (*unguarded, same_guard) {
                    (Some(a), Some(b)) => Some(a.min(b).1),
                    (a, b) => a.or(b).map(|(_, e)| e),
                };
                match earlier {
                    Some(by) => {
                        dead[ti] = Some(Dead::Shadowed {
                            by,
                            same_guard: chart.transitions[by].guard.is_some(),
                        })
                    }
                    None => match &t.guard {
                        None => *unguarded = Some((at, ti)),
                        Some(g) => guarded.entry(guard_hash(g)).or_default().push((at, ti)),
                    },
                }
            }
        }
        dead
    }

    /// Transition `ti` can fire while atomic state `u` is active, as far as its guard's
    /// `in(…)` conditions tell (a command bound on the root for one state, a side trip's
    /// return); whatever else it reads may hold. `u` alone does not tell whether a state in
    /// another region of a parallel ancestor is active (seed 000's constraints read where
    /// the railroad is, beside them), so such an `in(…)` may hold too.
    pub(crate) fn may_fire_at(&self, ti: usize, u: StateId) -> bool {
        fn known(m: &Machine, g: &Guard, u: StateId) -> Option<bool> {
            match g {
                Guard::In { state } => m.in_known_at(*state, u),
                Guard::Not { guard } => known(m, guard, u).map(|b| !b),
                Guard::All { of } => {
                    let parts: Vec<Option<bool>> = of.iter().map(|x| known(m, x, u)).collect();
                    if parts.contains(&Some(false)) {
                        Some(false)
                    } else {
                        parts.iter().all(|p| *p == Some(true)).then_some(true)
                    }
                }
                Guard::Any { of } => {
                    let parts: Vec<Option<bool>> = of.iter().map(|x| known(m, x, u)).collect();
                    if parts.contains(&Some(true)) {
                        Some(true)
                    } else {
                        parts.iter().all(|p| *p == Some(false)).then_some(false)
                    }
                }
                _ => None,
            }
        }
        self.chart.transitions[ti]
            .guard
            .as_ref()
            .is_none_or(|g| known(self, g, u) != Some(false))
    }

    /// Whether `state` is active whenever atomic state `u` is: `Some(true)` when `u` is inside
    /// it, `Some(false)` when the two exclude each other, `None` when they are in different
    /// regions of a parallel state (either may be active beside the other).
    fn in_known_at(&self, state: StateId, u: StateId) -> Option<bool> {
        let chart = &self.chart;
        if chart.is_descendant_or_self(u, state) {
            return Some(true);
        }
        // The nearest common ancestor decides: a parallel one runs both sides at once.
        let lca = std::iter::once(state)
            .chain(chart.ancestors(state))
            .find(|a| chart.is_descendant_or_self(u, *a))?;
        match chart.state(lca).kind {
            StateKind::Parallel if lca != state => None,
            _ => Some(false),
        }
    }

    /// `a → b` for messages (`a` stays, for a targetless transition).
    pub(crate) fn edge_text(&self, ti: usize) -> String {
        let chart = &self.chart;
        let t = &chart.transitions[ti];
        let to: Vec<&str> = t
            .targets
            .iter()
            .map(|s| chart.state(*s).key.as_str())
            .collect();
        let from = match chart.state(t.source).key.as_str() {
            "" => "anywhere",
            k => k,
        };
        if to.is_empty() {
            format!("`{from}` (staying)")
        } else {
            format!("`{from} → {}`", to.join(", "))
        }
    }

    /// Why transition `ti` never fires, for messages.
    pub(crate) fn dead_reason(&self, ti: usize, why: &Dead) -> String {
        let t = &self.chart.transitions[ti];
        match why {
            // A manifest's `why` follows the label: `[false]: the scores are the model's`; a
            // label with no `[guard]` is prose a dialect keeps as documentation.
            Dead::Off => match t.label.as_deref() {
                Some(l) if !l.contains('[') => format!(
                    "{} is never taken: its label `{l}` names no event",
                    self.edge_text(ti)
                ),
                _ => match t.label.as_deref().and_then(|l| l.split_once("]: ")) {
                    Some((_, why)) => format!("{} is switched off: {why}", self.edge_text(ti)),
                    None => format!("{} is switched off (`[false]`)", self.edge_text(ti)),
                },
            },
            Dead::Impossible(r) => format!("{} never fires: {r}", self.edge_text(ti)),
            Dead::Shadowed { by, .. } => format!(
                "{} never fires: {} before it always wins",
                self.edge_text(ti),
                self.edge_text(*by)
            ),
        }
    }

    /// Shadowed branches and guards that never hold (policies' `when` included).
    pub(crate) fn lint_dead(&self, dead: &[Option<Dead>], out: &mut Vec<Lint>) {
        let chart = &self.chart;
        for (ti, d) in dead.iter().enumerate() {
            let t = &chart.transitions[ti];
            match d {
                Some(Dead::Shadowed { by, same_guard }) => {
                    let src = chart.state(t.source);
                    let what = if matches!(src.kind, StateKind::Choice) {
                        format!("choice `{}`: the branch", src.key)
                    } else {
                        "the transition".to_string()
                    };
                    let cond = if *same_guard {
                        "has the same condition"
                    } else {
                        "has no condition"
                    };
                    out.push(Lint::warning(
                        "shadowed",
                        format!(
                            "{what} {} is never taken: {} before it {cond}",
                            self.edge_text(ti),
                            self.edge_text(*by)
                        ),
                        t.span,
                    ));
                }
                Some(Dead::Impossible(r)) => out.push(Lint::warning(
                    "impossible-guard",
                    format!("the guard of {} never holds: {r}", self.edge_text(ti)),
                    t.span,
                )),
                _ => {}
            }
        }
        let values = Values::of(self);
        for s in &chart.states {
            for p in s.all_policies() {
                let Some(why) = p.when.as_ref().and_then(|g| values.never(g, false)) else {
                    continue;
                };
                out.push(Lint::warning(
                    "impossible-guard",
                    format!(
                        "a policy of `{}` never applies: its `when` never holds: {why}",
                        if s.key.is_empty() {
                            &chart.name
                        } else {
                            &s.key
                        }
                    ),
                    p.span.or(s.span),
                ));
            }
        }
    }

    /// Why atomic state `x` is never entered: the transitions into it that never fire.
    pub(crate) fn unreachable_reason(&self, x: StateId, dead: &[Option<Dead>]) -> Option<String> {
        let reasons: Vec<String> = dead
            .iter()
            .enumerate()
            .filter_map(|(ti, d)| d.as_ref().map(|d| (ti, d)))
            .filter(|(ti, _)| {
                let t = &self.chart.transitions[*ti];
                !matches!(t.trigger, Trigger::Error(_))
                    && self.entry_set(&t.targets, self.domain(*ti)).contains(&x)
                    && t.source != StateId::ROOT
            })
            .map(|(ti, d)| self.dead_reason(ti, d))
            .take(3)
            .collect();
        (!reasons.is_empty()).then(|| reasons.join("; "))
    }
}

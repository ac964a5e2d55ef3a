//! The heuristics miner's dependency graph (A.J.M.M. Weijters and W.M.P. van der Aalst,
//! "Rediscovering Workflow Models from Event-Based Data using Little Thumb", Integrated
//! Computer-Aided Engineering 10(2), 2003; W.M.P. van der Aalst, "Process Mining", 2nd ed.,
//! Springer 2016, §7.2). It suits agent sessions: it counts how often one call directly
//! follows another (`a > b`) in one linear pass, and its dependency measure
//!
//! ```text
//! a ⇒ b = (|a > b| − |b > a|) / (|a > b| + |b > a| + 1)     a ⇒ a = |a > a| / (|a > a| + 1)
//! a ⇒₂ b = (|a >> b| + |b >> a|) / (|a >> b| + |b >> a| + 1)  (a b a: a loop of two)
//! ```
//!
//! discounts an order seen both ways (noise, or independent calls) and one seen rarely, while
//! every kept edge keeps the count behind it, which the draft shows. Its "all activities
//! connected" rule keeps each activity's strongest way in and out, so the draft has no
//! state it can never reach; the miner's split/join semantics are not used: a sequence step
//! is the last call made, and the draft is a state machine over those.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::activity::Activity;
use super::trace::{Interner, Session, Step};

/// A node of the graph: the start, an activity (by index), or the end.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Node {
    Start,
    Act(usize),
    End,
}

/// What the sessions did: their calls by activity, and each session's steps.
#[derive(Debug, Default)]
pub struct Counts {
    pub names: Interner,
    /// Calls per activity.
    pub calls: Vec<u64>,
    pub sessions: Vec<Session>,
}

impl Counts {
    pub fn add_session(&mut self, s: Session) {
        for step in &s.steps {
            if let Step::Start { act, .. } = step {
                let i = *act as usize;
                if self.calls.len() <= i {
                    self.calls.resize(i + 1, 0);
                }
                self.calls[i] += 1;
            }
        }
        self.sessions.push(s);
    }

    pub fn activities(&self) -> &[Activity] {
        &self.names.activities
    }

    pub fn label(&self, i: usize) -> &str {
        &self.names.activities[i].label
    }
}

/// Which step follows which, for one set of activities in the draft: the others are calls the
/// draft refuses and so never moves on, as the engine would.
#[derive(Debug, Default)]
pub struct Relations {
    /// `a > b`: b was called, or completed, while the session stood at a (the start and the
    /// end included).
    pub follows: HashMap<(Node, Node), u64>,
    /// `a >> b`: the session went a, b, a.
    loops2: HashMap<(usize, usize), u64>,
}

impl Relations {
    pub fn of(c: &Counts, kept: &BTreeSet<usize>) -> Relations {
        let mut r = Relations::default();
        for s in &c.sessions {
            r.add(s, kept);
        }
        r
    }

    fn add(&mut self, s: &Session, kept: &BTreeSet<usize>) {
        let mut at = Node::Start;
        let mut started: HashMap<u32, Node> = HashMap::new();
        let mut path: Vec<usize> = Vec::new();
        let mut any = false;
        for step in &s.steps {
            match *step {
                Step::Start { act, call } if kept.contains(&(act as usize)) => {
                    *self
                        .follows
                        .entry((at, Node::Act(act as usize)))
                        .or_default() += 1;
                    started.insert(call, at);
                    any = true;
                }
                Step::Done { act, call } if kept.contains(&(act as usize)) => {
                    let to = Node::Act(act as usize);
                    if started.remove(&call) != Some(at) {
                        *self.follows.entry((at, to)).or_default() += 1;
                    }
                    at = to;
                    path.push(act as usize);
                }
                Step::Failed { call } => {
                    started.remove(&call);
                }
                _ => {}
            }
        }
        if any {
            *self.follows.entry((at, Node::End)).or_default() += 1;
        }
        for w in path.windows(3) {
            if w[0] == w[2] && w[0] != w[1] {
                *self.loops2.entry((w[0], w[1])).or_default() += 1;
            }
        }
    }

    pub fn count(&self, a: Node, b: Node) -> u64 {
        self.follows.get(&(a, b)).copied().unwrap_or(0)
    }

    /// `a ⇒ b` (the start and the end have no reverse order: theirs is `n / (n + 1)`).
    pub fn dependency(&self, a: Node, b: Node) -> f64 {
        let ab = self.count(a, b) as f64;
        if a == b {
            return ab / (ab + 1.0);
        }
        let ba = match (a, b) {
            (Node::Act(_), Node::Act(_)) => self.count(b, a) as f64,
            _ => 0.0,
        };
        (ab - ba) / (ab + ba + 1.0)
    }

    /// `a ⇒₂ b`: how surely a and b alternate (a b a, b a b).
    pub fn loop2(&self, a: Node, b: Node) -> f64 {
        let (Node::Act(x), Node::Act(y)) = (a, b) else {
            return 0.0;
        };
        let n = (self.loops2.get(&(x, y)).copied().unwrap_or(0)
            + self.loops2.get(&(y, x)).copied().unwrap_or(0)) as f64;
        n / (n + 1.0)
    }
}

/// The thresholds a user tunes.
#[derive(Debug, Clone, Copy)]
pub struct Thresholds {
    /// An edge (and an activity) seen fewer times is left out.
    pub min_count: u64,
    /// An edge whose dependency (or loop-of-two dependency) is lower is left out.
    pub dependency: f64,
}

/// Why an edge is in the draft.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kept {
    /// Frequent and dependable enough.
    Threshold,
    /// The strongest way into or out of an activity (all activities connected).
    Strongest,
    /// Added so the draft can end from an activity no kept edge leads out of to an end.
    ToEnd,
}

#[derive(Debug, Clone)]
pub struct Edge {
    pub from: Node,
    pub to: Node,
    pub count: u64,
    pub dependency: f64,
    /// `a ⇒₂ b`: how surely the two alternate.
    pub loop2: f64,
    pub kept: Kept,
}

#[derive(Debug, Clone)]
pub struct Graph {
    /// Activities in the draft, most called first.
    pub kept: Vec<usize>,
    /// Activities left out: too rare, or not reachable from the start.
    pub left_out: Vec<usize>,
    pub edges: Vec<Edge>,
    /// Edges between kept activities that the thresholds left out.
    pub rare_edges: usize,
    /// How many sessions ended at each step.
    pub ends: HashMap<Node, u64>,
}

/// At most this many activities and edges make a draft: beyond them a diagram is unreadable
/// (and a hostile log would make one that no loader takes).
pub const MAX_ACTIVITIES: usize = 200;
pub const MAX_EDGES: usize = 4000;

/// The draft's graph for these thresholds. A graph with more than [`MAX_EDGES`] edges is
/// drawn again with a higher `min_count`; the one used is returned with it.
pub fn graph(c: &Counts, t: Thresholds) -> (Graph, Thresholds) {
    let mut t = t;
    loop {
        let g = graph_at(c, t);
        if g.edges.len() <= MAX_EDGES {
            return (g, t);
        }
        t.min_count = t.min_count.max(1) * 2;
    }
}

/// Rounds of leaving out what the start cannot reach (each makes the calls it leaves out
/// transparent, which can connect others); a bound, so a hostile log stays linear.
const ROUNDS: usize = 4;

fn graph_at(c: &Counts, t: Thresholds) -> Graph {
    let mut order: Vec<usize> = (0..c.calls.len()).collect();
    order.sort_by(|&a, &b| {
        c.calls[b]
            .cmp(&c.calls[a])
            .then_with(|| c.label(a).cmp(c.label(b)))
    });
    let mut kept: BTreeSet<usize> = order
        .iter()
        .take(MAX_ACTIVITIES)
        .copied()
        .filter(|&i| c.calls[i] >= t.min_count)
        .collect();
    let mut round = 0;
    loop {
        let rel = Relations::of(c, &kept);
        let (chosen, rare) = choose(&rel, &kept, t);
        let reachable = reach(&chosen, Node::Start, false);
        let lost: Vec<usize> = kept
            .iter()
            .copied()
            .filter(|i| !reachable.contains(&Node::Act(*i)))
            .collect();
        round += 1;
        if lost.is_empty() || round > ROUNDS {
            let kept: BTreeSet<usize> = kept.into_iter().filter(|i| !lost.contains(i)).collect();
            return finish(&rel, chosen, kept, &order, rare);
        }
        kept.retain(|i| !lost.contains(i));
    }
}

/// The edges between activities of the draft: frequent and dependable ones, then each
/// activity's strongest way in and out. Returns them and how many the thresholds left out.
fn choose(
    rel: &Relations,
    kept: &BTreeSet<usize>,
    t: Thresholds,
) -> (BTreeMap<(Node, Node), Kept>, usize) {
    let mut chosen: BTreeMap<(Node, Node), Kept> = BTreeMap::new();
    let mut rare: usize = 0;
    for (&(a, b), &n) in &rel.follows {
        let dependable = matches!((a, b), (Node::Start, _) | (_, Node::End))
            || rel.dependency(a, b) >= t.dependency
            || rel.loop2(a, b) >= t.dependency;
        if n >= t.min_count && dependable {
            chosen.insert((a, b), Kept::Threshold);
        } else {
            rare += 1;
        }
    }
    // All activities connected: each keeps its strongest way in and out.
    for &i in kept {
        let strongest = |incoming: bool| {
            rel.follows
                .iter()
                .filter(|((a, b), _)| {
                    let (me, other) = if incoming { (*b, *a) } else { (*a, *b) };
                    me == Node::Act(i) && other != Node::Act(i)
                })
                .max_by(|((a1, b1), n1), ((a2, b2), n2)| {
                    rel.dependency(*a1, *b1)
                        .total_cmp(&rel.dependency(*a2, *b2))
                        .then(n1.cmp(n2))
                        .then((a2, b2).cmp(&(a1, b1)))
                })
                .map(|(k, _)| *k)
        };
        for incoming in [true, false] {
            if let Some(k) = strongest(incoming)
                && !chosen.contains_key(&k)
            {
                chosen.insert(k, Kept::Strongest);
                rare = rare.saturating_sub(1);
            }
        }
    }
    (chosen, rare)
}

/// The graph of the activities the start reaches: every one of them can end.
fn finish(
    rel: &Relations,
    mut chosen: BTreeMap<(Node, Node), Kept>,
    kept: BTreeSet<usize>,
    order: &[usize],
    rare: usize,
) -> Graph {
    chosen.retain(|(a, b), _| {
        [a, b].iter().all(|n| match n {
            Node::Act(i) => kept.contains(i),
            _ => true,
        })
    });
    let ends = reach(&chosen, Node::End, true);
    for &i in &kept {
        if !ends.contains(&Node::Act(i)) {
            chosen.insert((Node::Act(i), Node::End), Kept::ToEnd);
        }
    }
    let mut edges: Vec<Edge> = chosen
        .into_iter()
        .map(|((from, to), kept)| Edge {
            from,
            to,
            count: rel.count(from, to),
            dependency: rel.dependency(from, to),
            loop2: rel.loop2(from, to),
            kept,
        })
        .collect();
    edges.sort_by(|a, b| (a.kept, b.count, a.from, a.to).cmp(&(b.kept, a.count, b.from, b.to)));
    // Most called first, as the draft lists its states.
    let kept_order: Vec<usize> = order.iter().copied().filter(|i| kept.contains(i)).collect();
    let left_out: Vec<usize> = order
        .iter()
        .copied()
        .filter(|i| !kept.contains(i))
        .collect();
    Graph {
        kept: kept_order,
        left_out,
        edges,
        rare_edges: rare,
        ends: rel
            .follows
            .iter()
            .filter(|((_, b), _)| *b == Node::End)
            .map(|((a, _), n)| (*a, *n))
            .collect(),
    }
}

/// Nodes reachable from `from` over the chosen edges (against them when `backwards`).
fn reach(chosen: &BTreeMap<(Node, Node), Kept>, from: Node, backwards: bool) -> BTreeSet<Node> {
    let mut next: HashMap<Node, Vec<Node>> = HashMap::new();
    for &(a, b) in chosen.keys() {
        let (x, y) = if backwards { (b, a) } else { (a, b) };
        next.entry(x).or_default().push(y);
    }
    let mut seen = BTreeSet::from([from]);
    let mut stack = vec![from];
    while let Some(n) = stack.pop() {
        for &m in next.get(&n).map(Vec::as_slice).unwrap_or(&[]) {
            if seen.insert(m) {
                stack.push(m);
            }
        }
    }
    seen
}

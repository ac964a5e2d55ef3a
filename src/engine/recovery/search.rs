//! The path search that knows the data: shortest paths (Dijkstra on agent actions) over
//! (state, data) nodes, carrying the flags and variables the transitions on the way set. A
//! transition whose guard is false for the data there is no way forward, and a state an
//! eventless transition leaves at once is no place to make a call. So "next", "steps
//! remaining" and the way to a denied call follow what the sequence will really do (a counted
//! loop ends, a side trip returns where it came from), not every edge the graph draws. The
//! deep-state monitors stay as they are now (their facts as sampled); a reader's fact in a
//! transition's guard may change as the work goes on, so such a guard may go either way.
//!
//! The search is bounded: past [`NODE_CAP`] nodes it gives up and the plain graph search
//! (guards ignored, `graph::distances`) answers instead.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::rc::Rc;

use super::data::{Data, FxMap, Relevant, read_by, written_by};
use crate::engine::graph::Edge;
use crate::engine::ir::{Action, Guard, StateId, Trigger};
use crate::engine::machine::Machine;
use crate::engine::snapshot::Snapshot;

/// Most (state, data) nodes one search creates before falling back to the plain search.
pub(crate) const NODE_CAP: usize = 4096;

pub(crate) struct Node {
    pub state: StateId,
    pub data: Rc<Data>,
    dist: u32,
    waits: u32,
    pub parent: Option<(usize, Edge)>,
    settled: bool,
}

/// What one search found.
pub(crate) struct Reach {
    /// Per state: the fewest agent actions that reach it (`None`: unreachable).
    pub dist: Vec<Option<u32>>,
    pub kind: Found,
}

pub(crate) enum Found {
    /// The search with the data: its nodes, in the order they were settled.
    Data {
        nodes: Vec<Node>,
        order: Vec<usize>,
        /// Per state: the node that reached it first.
        best: Vec<Option<usize>>,
    },
    /// Past the cap: the plain search's tree.
    Plain { via: Vec<Option<Edge>> },
}

impl Reach {
    /// The edges from the session's configuration to `target`, in order.
    pub(crate) fn path_to(&self, m: &Machine, target: StateId, snap: &Snapshot) -> Vec<Edge> {
        match &self.kind {
            Found::Plain { via } => m.path_to(via, target, snap),
            Found::Data { best, .. } => best[target.index()]
                .map(|n| self.path_to_node(m, n))
                .unwrap_or_default(),
        }
    }

    /// The edges leading to node `node`.
    pub(crate) fn path_to_node(&self, m: &Machine, node: usize) -> Vec<Edge> {
        let mut rev = self.chain(m, node, None, 0).0;
        rev.reverse();
        rev
    }

    /// The edges to `node`, newest first, stopping at the edge that entered `inside`; and the
    /// node it stopped at. A join brings in the steps of every region it waits for, each
    /// region's in document order.
    fn chain(
        &self,
        m: &Machine,
        node: usize,
        inside: Option<StateId>,
        depth: usize,
    ) -> (Vec<Edge>, usize) {
        let Found::Data { nodes, best, .. } = &self.kind else {
            return (Vec::new(), node);
        };
        let chart = &m.chart;
        let mut rev: Vec<Edge> = Vec::new();
        let mut cur = node;
        for _ in 0..=nodes.len() {
            let Some((parent, e)) = nodes[cur].parent else {
                break;
            };
            if inside.is_some_and(|x| !chart.is_descendant_or_self(e.from, x)) {
                break;
            }
            rev.push(e);
            if let Some(x) = m.joined_parallel(&e)
                && depth < chart.states.len()
            {
                let own = chart.state(e.from).parent;
                let mut entered = parent;
                let mut segs: Vec<Vec<Edge>> = Vec::new();
                for &region in &chart.state(x).children {
                    let end = if Some(region) == own {
                        Some(parent)
                    } else {
                        // The other regions' nearest endings.
                        chart
                            .state(region)
                            .children
                            .iter()
                            .filter(|c| chart.state(**c).is_final())
                            .filter_map(|c| best[c.index()])
                            .min_by_key(|n| (nodes[*n].dist, nodes[*n].waits))
                    };
                    let Some(end) = end else { continue };
                    let (seg, stop) = self.chain(m, end, Some(x), depth + 1);
                    if Some(region) == own {
                        entered = stop;
                    }
                    segs.push(seg);
                }
                for seg in segs.iter().rev() {
                    rev.extend(seg.iter().copied());
                }
                // Then on before the parallel state, from where its regions were entered.
                cur = entered;
                continue;
            }
            cur = parent;
        }
        (rev, cur)
    }
}

impl Machine {
    /// The search from the session's configuration. Calls bound on the root (a command
    /// that enters a stage from anywhere) are no steps of it, as of every route.
    pub(crate) fn reach(&self, snap: &Snapshot) -> Reach {
        self.reach_from(snap, None)
    }

    /// The search with one more kind of first step: a call bound on the root that the agent
    /// can make now and that sets what `when` reads (a restart that starts an artifact
    /// over, seed 004's `/hope:intent`).
    pub(crate) fn reach_restarting(&self, snap: &Snapshot, when: &Guard) -> Reach {
        self.reach_from(snap, Some(when))
    }

    fn reach_from(&self, snap: &Snapshot, restart: Option<&Guard>) -> Reach {
        let n = self.chart.states.len();
        let rel = Relevant::of(&self.chart);
        let mut s = Search::new(self, snap, &rel);
        let now = s.intern(Data::now(snap, &rel));
        // The deep-state monitors (a parallel root's regions without an ending) stay as they
        // are now: their facts are taken as sampled, and they are no steps of a path.
        let starts: Vec<StateId> = self
            .atomic_active(snap)
            .into_iter()
            .filter(|s| !self.is_monitor(*s))
            .collect();
        let mut start_nodes = Vec::new();
        for &u in &starts {
            start_nodes.push(s.relax(u, now.clone(), (0, 0), None));
        }
        if let Some(when) = restart {
            let reads = read_by(when);
            for (&u, start) in starts.iter().zip(&start_nodes) {
                for e in self.root_edges_now(u, snap) {
                    if self.waits(e.transition) {
                        continue;
                    }
                    let sets = written_by(s.actions_of(e.transition));
                    if let (Some(from), false) = (start, sets.is_disjoint(&reads)) {
                        let data = s.after(&now, e.transition);
                        s.relax(e.to, data, (1, 0), Some((*from, e)));
                    }
                }
            }
        }
        let mut order = Vec::new();
        let mut best: Vec<Option<usize>> = vec![None; n];
        while let Some(Reverse((du, wu, i))) = s.heap.pop() {
            let node = &s.nodes[i];
            if node.settled || (node.dist, node.waits) != (du, wu) {
                continue;
            }
            s.nodes[i].settled = true;
            let u = s.nodes[i].state;
            order.push(i);
            if best[u.index()].is_none() {
                best[u.index()] = Some(i);
                s.settled[u.index()] = true;
            }
            if s.nodes.len() > NODE_CAP {
                let (dist, via) = self.distances(snap);
                return Reach {
                    dist,
                    kind: Found::Plain { via },
                };
            }
            let data = s.nodes[i].data.clone();
            for e in s.edges_now(u, &data) {
                let key = match self.joined_parallel(&e) {
                    Some(x) => match self.join_key(x, snap, &s.dist, &s.waits, &s.settled) {
                        Some(k) => k,
                        // Another region has not reached an ending yet: when it does, its
                        // ending relaxes this join.
                        None => continue,
                    },
                    None => (du + e.cost, wu + u32::from(self.waits(e.transition))),
                };
                let after = s.after(&data, e.transition);
                s.relax(e.to, after, key, Some((i, e)));
            }
        }
        let Search { nodes, .. } = s;
        let dist = best
            .iter()
            .map(|b| b.map(|i| nodes[i].dist))
            .collect::<Vec<_>>();
        Reach {
            dist,
            kind: Found::Data { nodes, order, best },
        }
    }
}

impl<'a> Search<'a> {
    fn new(m: &'a Machine, snap: &'a Snapshot, rel: &'a Relevant) -> Self {
        let n = m.chart.states.len();
        Search {
            m,
            snap,
            rel,
            nodes: Vec::new(),
            index: FxMap::default(),
            heap: BinaryHeap::new(),
            dist: vec![None; n],
            waits: vec![0; n],
            settled: vec![false; n],
            edges: vec![None; n],
            configs: vec![None; n],
            interned: FxMap::default(),
            afters: FxMap::default(),
            acts: vec![None; m.chart.transitions.len()],
        }
    }
}

struct Search<'a> {
    m: &'a Machine,
    snap: &'a Snapshot,
    rel: &'a Relevant,
    nodes: Vec<Node>,
    index: FxMap<(StateId, *const Data), usize>,
    heap: BinaryHeap<Reverse<(u32, u32, usize)>>,
    /// Per state, over its nodes: tentative distance and waits, and whether one is settled
    /// (what a join needs to know of each region).
    dist: Vec<Option<u32>>,
    waits: Vec<u32>,
    settled: Vec<bool>,
    /// Per state: its edges and its configuration, computed once.
    edges: Vec<Option<Rc<[Edge]>>>,
    configs: Vec<Option<Vec<StateId>>>,
    /// Every distinct data met, once (by fingerprint): equal data is the same `Rc`.
    interned: FxMap<u64, Vec<Rc<Data>>>,
    /// The data after a transition, per (data, transition).
    afters: FxMap<(*const Data, usize), Rc<Data>>,
    /// Per transition: its actions and the entry actions of what it enters.
    acts: Vec<Option<Vec<Action>>>,
}

impl Search<'_> {
    /// Reach `(state, data)` at `key` by `parent`, when that is better than known so far; the
    /// node's index.
    fn relax(
        &mut self,
        state: StateId,
        data: Rc<Data>,
        key: (u32, u32),
        parent: Option<(usize, Edge)>,
    ) -> Option<usize> {
        let found = self.index.get(&(state, Rc::as_ptr(&data))).copied();
        let i = match found {
            Some(j) => {
                let n = &self.nodes[j];
                if n.settled || (n.dist, n.waits) <= key {
                    return Some(j);
                }
                j
            }
            None => {
                let key = (state, Rc::as_ptr(&data));
                self.nodes.push(Node {
                    state,
                    data,
                    dist: u32::MAX,
                    waits: u32::MAX,
                    parent: None,
                    settled: false,
                });
                let j = self.nodes.len() - 1;
                self.index.insert(key, j);
                j
            }
        };
        let n = &mut self.nodes[i];
        (n.dist, n.waits, n.parent) = (key.0, key.1, parent);
        let s = state.index();
        if self.dist[s].is_none_or(|d| key < (d, self.waits[s])) {
            self.dist[s] = Some(key.0);
            self.waits[s] = key.1;
        }
        self.heap.push(Reverse((key.0, key.1, i)));
        Some(i)
    }

    /// Transition `ti`'s actions and the entry actions of what it enters, those that change
    /// the data the search carries.
    fn actions_of(&mut self, ti: usize) -> &[Action] {
        let (m, rel) = (self.m, self.rel);
        self.acts[ti].get_or_insert_with(|| {
            let t = &m.chart.transitions[ti];
            let mut all: Vec<Action> = t.actions.iter().filter(|a| rel.keeps(a)).cloned().collect();
            if !t.targets.is_empty() {
                for s in m.entry_set(&t.targets, m.domain(ti)) {
                    let entry = &m.chart.state(s).on_entry;
                    all.extend(entry.iter().filter(|a| rel.keeps(a)).cloned());
                }
            }
            all
        })
    }

    /// The one `Rc` of data equal to `data`.
    fn intern(&mut self, data: Data) -> Rc<Data> {
        let bucket = self.interned.entry(data.fingerprint()).or_default();
        if let Some(same) = bucket.iter().find(|d| ***d == data) {
            return same.clone();
        }
        let rc = Rc::new(data);
        bucket.push(rc.clone());
        rc
    }

    /// The data after taking transition `ti` from `data`.
    fn after(&mut self, data: &Rc<Data>, ti: usize) -> Rc<Data> {
        let rel = self.rel;
        if self.actions_of(ti).is_empty() {
            return data.clone();
        }
        let key = (Rc::as_ptr(data), ti);
        if let Some(known) = self.afters.get(&key) {
            return known.clone();
        }
        let next = data.after(self.actions_of(ti), rel);
        let next = if next == **data {
            data.clone()
        } else {
            self.intern(next)
        };
        self.afters.insert(key, next.clone());
        next
    }

    /// The edges out of `u` that can be taken with `data`: a guard false here is no way; of
    /// transitions on the same trigger the first whose guard holds wins; and when an eventless
    /// transition is taken at once, the state is only passed through.
    fn edges_now(&mut self, u: StateId, data: &Data) -> Vec<Edge> {
        let m = self.m;
        let all = self.edges[u.index()]
            .get_or_insert_with(|| m.edges_from(u).into())
            .clone();
        let snap = self.snap;
        let config = self.configs[u.index()].get_or_insert_with(|| m.config_at(u, snap));
        // The transition that took each trigger first (one per trigger, as the step picks).
        let mut taken: FxMap<&Trigger, usize> = FxMap::default();
        let mut passed_through = false;
        let mut out = Vec::new();
        for &e in all.iter() {
            let t = &m.chart.transitions[e.transition];
            if taken.get(&t.trigger).is_some_and(|ti| *ti != e.transition) {
                continue;
            }
            let holds = match &t.guard {
                None => Some(true),
                Some(_) if m.stands_in(e.transition, u) => Some(true),
                Some(g) => data.eval(g, config, None),
            };
            match holds {
                Some(false) => continue,
                Some(true) => {
                    taken.entry(&t.trigger).or_insert(e.transition);
                    passed_through |= t.trigger == Trigger::Always;
                }
                None => {}
            }
            out.push(e);
        }
        if passed_through {
            out.retain(|e| e.cost == 0);
        }
        out
    }
}

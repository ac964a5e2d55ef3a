//! A `<<fork>>` whose branches are plain sibling states, as in Mermaid's own example
//! (`[*] --> fork_state`, `fork_state --> State2`, `fork_state --> State3`, both joined later),
//! draws concurrency without a composite. The IR runs concurrency in the regions of a parallel
//! state, so such a fork becomes one: a composite named after the fork with a region per
//! branch (`[*] --> State2`, then the states that branch reaches before the join). Edges into
//! the fork enter the composite; the join leaves it when every branch has arrived.
//!
//! A fork whose targets already lie in the regions (`--`) of a composite is left as it is.

use std::collections::{HashMap, HashSet, VecDeque};

use super::ast::{Body, Diagram, End, Ident, Pos, Stereo, Stmt, StmtKind};
use super::parser::ParseError;

/// The diagram with every sibling-branch fork turned into a parallel composite.
pub fn apply(mut d: Diagram) -> Result<Diagram, ParseError> {
    d.body = body(d.body)?;
    Ok(d)
}

fn body(b: Body) -> Result<Body, ParseError> {
    let regions = b
        .regions
        .into_iter()
        .map(scope)
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Body { regions })
}

/// One scope's statements (composites inside are rewritten first).
fn scope(stmts: Vec<Stmt>) -> Result<Vec<Stmt>, ParseError> {
    let mut stmts = stmts
        .into_iter()
        .map(|s| match s.kind {
            StmtKind::State {
                id,
                label,
                stereo,
                body: Some(b),
            } => Ok(Stmt {
                pos: s.pos,
                kind: StmtKind::State {
                    id,
                    label,
                    stereo,
                    body: Some(body(b)?),
                },
            }),
            _ => Ok(s),
        })
        .collect::<Result<Vec<_>, ParseError>>()?;
    let pseudo: HashSet<String> = stmts
        .iter()
        .filter_map(|s| match &s.kind {
            StmtKind::State {
                id,
                stereo: Some((Stereo::Fork | Stereo::Join, _)),
                body: None,
                ..
            } => Some(id.name.clone()),
            _ => None,
        })
        .collect();
    let forks: Vec<Ident> = stmts
        .iter()
        .filter_map(|s| match &s.kind {
            StmtKind::State {
                id,
                stereo: Some((Stereo::Fork, _)),
                body: None,
                ..
            } => Some(id.clone()),
            _ => None,
        })
        .collect();
    for fork in forks {
        stmts = regions_for(stmts, &fork, &pseudo)?;
    }
    Ok(stmts)
}

/// Ids mentioned inside the composites of `stmts` (at any depth).
fn nested_ids(stmts: &[Stmt], out: &mut HashSet<String>) {
    for s in stmts {
        if let StmtKind::State { body: Some(b), .. } = &s.kind {
            for r in &b.regions {
                for inner in r {
                    mentioned(inner, out);
                }
                nested_ids(r, out);
            }
        }
    }
}

fn mentioned(s: &Stmt, out: &mut HashSet<String>) {
    match &s.kind {
        StmtKind::State { id, .. } | StmtKind::Describe { id, .. } => {
            out.insert(id.name.clone());
        }
        StmtKind::Edge { from, to, .. } => {
            for e in [from, to] {
                if let End::State(i) = e {
                    out.insert(i.name.clone());
                }
            }
        }
        StmtKind::Note { target, .. } => {
            if let Some(t) = target {
                out.insert(t.name.clone());
            }
        }
    }
}

fn edge_ends(s: &Stmt) -> Option<(&End, &End)> {
    match &s.kind {
        StmtKind::Edge { from, to, .. } => Some((from, to)),
        _ => None,
    }
}

fn state_name(e: &End) -> Option<&str> {
    match e {
        End::State(i) => Some(&i.name),
        End::Star(_) => None,
    }
}

fn regions_for(
    stmts: Vec<Stmt>,
    fork: &Ident,
    pseudo: &HashSet<String>,
) -> Result<Vec<Stmt>, ParseError> {
    let targets: Vec<(String, Pos)> = stmts
        .iter()
        .filter_map(|s| {
            let (from, to) = edge_ends(s)?;
            (state_name(from) == Some(&fork.name))
                .then(|| state_name(to).map(|t| (t.to_string(), s.pos)))?
        })
        .collect();
    let mut inner = HashSet::new();
    nested_ids(&stmts, &mut inner);
    let plain = |n: &str| !pseudo.contains(n) && !inner.contains(n);
    if targets.len() < 2 || !targets.iter().all(|(t, _)| plain(t)) {
        return Ok(stmts);
    }
    let branch_of = branches(&stmts, fork, &targets, &plain)?;
    Ok(regroup(stmts, fork, &targets, &branch_of, pseudo))
}

/// Each branch: what its target reaches through this scope's edges, up to a join. A state
/// two branches reach is an error: branches of a fork meet only at a join.
fn branches(
    stmts: &[Stmt],
    fork: &Ident,
    targets: &[(String, Pos)],
    plain: &dyn Fn(&str) -> bool,
) -> Result<HashMap<String, usize>, ParseError> {
    let mut next: HashMap<&str, Vec<(&str, Pos)>> = HashMap::new();
    for s in stmts {
        if let Some((End::State(a), End::State(b))) = edge_ends(s) {
            next.entry(a.name.as_str())
                .or_default()
                .push((b.name.as_str(), s.pos));
        }
    }
    let mut branch_of: HashMap<String, usize> = HashMap::new();
    for (i, (t, _)) in targets.iter().enumerate() {
        let mut queue = VecDeque::from([(t.as_str(), fork.pos)]);
        while let Some((n, pos)) = queue.pop_front() {
            if !plain(n) || n == fork.name {
                continue;
            }
            match branch_of.get(n) {
                Some(j) if *j == i => continue,
                Some(j) => {
                    return Err(ParseError {
                        pos,
                        message: format!(
                            "fork `{}`: `{n}` is reached from both `{}` and `{}`; branches of a fork meet only at a `<<join>>`",
                            fork.name, targets[*j].0, targets[i].0
                        ),
                    });
                }
                None => {
                    branch_of.insert(n.to_string(), i);
                }
            }
            queue.extend(next.get(n).into_iter().flatten().copied());
        }
    }
    Ok(branch_of)
}

/// The branch a statement belongs to: that of the state it declares, describes, annotates
/// or leaves.
fn owner(s: &Stmt, branch_of: &HashMap<String, usize>) -> Option<usize> {
    let name = match &s.kind {
        StmtKind::State { id, .. } | StmtKind::Describe { id, .. } => Some(&id.name),
        StmtKind::Note { target, .. } => target.as_ref().map(|t| &t.name),
        StmtKind::Edge { from, .. } => match from {
            End::State(i) => Some(&i.name),
            End::Star(_) => None,
        },
    };
    name.and_then(|n| branch_of.get(n).copied())
}

/// The statements with the fork's branches moved into a composite of that name, one region
/// per branch (entered at its target), where the fork was declared.
fn regroup(
    stmts: Vec<Stmt>,
    fork: &Ident,
    targets: &[(String, Pos)],
    branch_of: &HashMap<String, usize>,
    pseudo: &HashSet<String>,
) -> Vec<Stmt> {
    let mut regions: Vec<Vec<Stmt>> = targets
        .iter()
        .map(|(t, pos)| {
            vec![Stmt {
                pos: *pos,
                kind: StmtKind::Edge {
                    from: End::Star(*pos),
                    to: End::State(Ident {
                        name: t.clone(),
                        pos: *pos,
                    }),
                    label: None,
                },
            }]
        })
        .collect();
    let mut out = Vec::new();
    let mut slot = None;
    for s in stmts {
        let is_fork_decl =
            matches!(&s.kind, StmtKind::State { id, body: None, .. } if id.name == fork.name);
        let from_fork = edge_ends(&s).is_some_and(|(f, _)| state_name(f) == Some(&fork.name));
        if is_fork_decl {
            slot.get_or_insert(out.len());
        } else if from_fork {
            continue;
        } else if let Some(i) = owner(&s, branch_of) {
            regions[i].push(s);
        } else {
            out.push(s);
        }
    }
    let composite = Stmt {
        pos: fork.pos,
        kind: StmtKind::State {
            id: fork.clone(),
            label: None,
            stereo: None,
            body: Some(Body { regions }),
        },
    };
    // Joins declared later must still be declared before the regions use them.
    let slot = slot.unwrap_or(0);
    let mut rest = out.split_off(slot);
    let (decls, rest): (Vec<Stmt>, Vec<Stmt>) = rest.drain(..).partition(|s| {
        matches!(&s.kind, StmtKind::State { id, body: None, stereo: Some(_), .. } if pseudo.contains(&id.name))
    });
    out.extend(decls);
    out.push(composite);
    out.extend(rest);
    out
}

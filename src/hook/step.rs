//! Step: every sequence stepped on the prepared event, the answer chosen. No I/O: it works on
//! what prepare read and the session's snapshots and bookkeeping, loaded under the lock, and
//! returns what commit writes.

use super::answer;
use super::prepare::Prepared;
use crate::engine::{Snapshot, StepReport, Verdict};
use crate::protocol::{Answer, output};
use crate::store::redact::Cut;
use crate::store::sessions::SessionMeta;

/// What a step decided, for commit.
pub(super) struct Stepped {
    pub answer: Answer,
    /// The sequences' verdicts combined (`None`: nothing to decide on this event).
    pub verdict: Option<Verdict>,
    /// Whether any sequence moved (seed 000's allowed tools are rewritten then).
    pub moved: bool,
    /// What scrubbing the verdict's texts cut.
    pub cuts: Vec<Cut>,
}

/// Step `snaps` (one per loaded sequence) and choose the answer: the combined verdict's, else
/// the guidance line when one is due (`meta` keeps when each was last injected).
pub(super) fn step(p: &Prepared, snaps: &mut [Snapshot], meta: &mut SessionMeta) -> Stepped {
    let mut reports: Vec<StepReport> = Vec::new();
    if let Some(n) = &p.normalized {
        for (l, snap) in p.loaded.iter().zip(snaps.iter_mut()) {
            reports.push(l.machine.step(snap, n.phase, &n.event, &p.facts));
        }
    }
    let mut verdict = answer::combine(&p.names(), &reports);
    let mut cuts = Vec::new();
    if let Some(v) = &mut verdict {
        answer::scrub_verdict(v, &mut cuts);
    }
    let mut answer = answer::respond(
        &p.input,
        p.normalized.as_ref().map(|n| n.phase),
        verdict.as_ref(),
        &p.cfg,
        answer::expected(&reports),
    );
    if answer.is_empty()
        && let Some(text) = answer::guidance(&p.input, &p.loaded, snaps, meta, p.cfg.inject_every)
    {
        answer = output::context(&p.input.event, &text);
    }
    Stepped {
        answer,
        verdict,
        moved: reports.iter().any(|r| r.changed),
        cuts,
    }
}

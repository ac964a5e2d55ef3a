//! What keeps a slow or broken hook from letting a call through: a Claude Code timeout above
//! the hook's budget (past its budget a hook answers by its fail mode; past the timeout
//! Claude Code lets the call through), and under `fail = "closed"` a gate that Claude Code
//! blocks when the hook cannot answer at all (`"onFailure": "block"`).

use std::path::Path;
use std::time::Duration;

use crate::commands::install::{self, Handler};

/// What the project's configuration asks of seed's handlers.
pub struct Wanted {
    pub fail_closed: bool,
    pub budget: Duration,
}

impl Wanted {
    pub fn of(project: &Path) -> Wanted {
        let env = |k: &str| std::env::var(k).ok();
        let budget = crate::config::load(&[project.to_path_buf()], &env, &Default::default())
            .map_or(crate::config::guarded::DEFAULT_HOOK_BUDGET, |c| {
                c.hook_budget
            });
        Wanted {
            fail_closed: install::checks::fails_closed(None, project),
            budget,
        }
    }
}

/// The handler's settings that would let a call through, each as one line.
pub fn check(h: &Handler, want: &Wanted) -> Vec<String> {
    let mut problems = Vec::new();
    if let Some(t) = h.timeout
        && t * 1000.0 <= want.budget.as_millis() as f64
    {
        problems.push(format!(
            "its timeout ({t} s) is not above hook_budget_ms ({} ms): Claude Code would stop the hook first and let the call through; run `seed install` again (it writes {} s)",
            want.budget.as_millis(),
            install::TIMEOUT_SECS
        ));
    }
    if want.fail_closed
        && install::BLOCK_ON_FAILURE.contains(&h.event.as_str())
        && h.on_failure.as_deref() != Some("block")
    {
        problems.push(
            "fail = \"closed\" but the handler has no \"onFailure\": \"block\": a hook that cannot start, crashes or times out lets the call through; run `seed install` again".to_string(),
        );
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gate(timeout: Option<f64>, on_failure: Option<&str>) -> Handler {
        Handler {
            event: "PreToolUse".into(),
            matcher: Some("*".into()),
            command: "seed hook PreToolUse # seed-managed".into(),
            timeout,
            on_failure: on_failure.map(String::from),
        }
    }

    #[test]
    fn a_timeout_at_or_below_the_budget_is_named() {
        let want = Wanted {
            fail_closed: false,
            budget: Duration::from_secs(10),
        };
        assert!(check(&gate(Some(30.0), None), &want).is_empty());
        assert!(check(&gate(None, None), &want).is_empty());
        let p = check(&gate(Some(10.0), None), &want);
        assert_eq!(p.len(), 1);
        assert!(p[0].starts_with("its timeout (10 s) is not above hook_budget_ms (10000 ms)"));
    }

    #[test]
    fn a_fail_closed_gate_without_on_failure_block_is_named() {
        let want = Wanted {
            fail_closed: true,
            budget: Duration::from_secs(10),
        };
        assert!(check(&gate(Some(30.0), Some("block")), &want).is_empty());
        for wrong in [None, Some("continue")] {
            let p = check(&gate(Some(30.0), wrong), &want);
            assert!(p.len() == 1 && p[0].contains("onFailure"), "{p:?}");
        }
        // Only the gate: a Stop handler ignores onFailure.
        let mut stop = gate(Some(30.0), None);
        stop.event = "Stop".into();
        assert!(check(&stop, &want).is_empty());
        // Fail-open keeps today's entries.
        let open = Wanted {
            fail_closed: false,
            ..want
        };
        assert!(check(&gate(Some(30.0), None), &open).is_empty());
    }
}

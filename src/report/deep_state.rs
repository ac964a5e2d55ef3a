//! Seed 000's tier 2 reads "the actual file systems used by each component" under
//! `${HEAVEN_DATA_DIR}`. With the variable unset those readers find nothing, every constraint
//! stays out of force and nothing says why: this is the one line every face says instead.

use std::path::{Path, PathBuf};

use super::validation::FileReport;
use crate::dialects;
use crate::engine::ir::Chart;
use crate::engine::lint::Lint;

/// The variable the HEAVEN systems' state lives under.
pub const HEAVEN_DATA_DIR: &str = "HEAVEN_DATA_DIR";

/// One line when `chart`'s readers read under `${HEAVEN_DATA_DIR}` and `env` has it unset (or
/// empty, which the hook reads as unset); `None` otherwise.
pub fn unset_notice(chart: &Chart, env: &dyn Fn(&str) -> Option<String>) -> Option<String> {
    if env(HEAVEN_DATA_DIR).is_some_and(|v| !v.is_empty()) {
        return None;
    }
    let needle = format!("${{{HEAVEN_DATA_DIR}}}");
    let readers: Vec<&str> = chart
        .readers
        .iter()
        .filter(|r| r.kind.path().contains(&needle))
        .map(|r| r.name.as_str())
        .collect();
    if readers.is_empty() {
        return None;
    }
    Some(format!(
        "deep state (tier 2) never applies: {HEAVEN_DATA_DIR} is not set, so {} {} nothing (set it to where the HEAVEN systems keep their state)",
        match readers.as_slice() {
            [one] => format!("reader {one}"),
            many => format!("readers {}", many.join(", ")),
        },
        if readers.len() == 1 { "reads" } else { "read" }
    ))
}

/// `seed validate`'s (and the MCP tool's) warning on every sequence whose readers would read
/// nothing here; `paths` are the ones validated (a bare name is a sequence's).
pub fn add_warnings(
    reports: &mut [FileReport],
    paths: &[PathBuf],
    env: &dyn Fn(&str) -> Option<String>,
) {
    for r in reports.iter_mut().filter(|r| r.sequence.is_some()) {
        let src = Path::new(&r.source);
        let loaded = match r.source.strip_prefix("builtin:") {
            Some(name) => dialects::builtin(name).and_then(Result::ok),
            None if src.exists() => dialects::load_path(src).ok(),
            None if paths.iter().any(|p| p == src) => {
                dialects::resolve(&r.source, &dialects::sequence_search_dirs()).ok()
            }
            None => None,
        };
        if let Some(n) = loaded.and_then(|l| unset_notice(&l.chart, env)) {
            r.lints.push(Lint::warning("deep-state-unset", n, None));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chart(name: &str) -> Chart {
        crate::dialects::builtin(name)
            .expect("a built-in")
            .expect("it loads")
            .chart
    }

    #[test]
    fn said_only_when_the_readers_need_it_and_it_is_unset() {
        let unset = |_: &str| None;
        let empty = |_: &str| Some(String::new());
        let set = |_: &str| Some("/srv/heaven".to_string());
        let ci = chart("compound_intelligence");
        assert_eq!(
            unset_notice(&ci, &unset).as_deref(),
            Some(
                "deep state (tier 2) never applies: HEAVEN_DATA_DIR is not set, so readers waypoint_status, starlog_status, flight_status read nothing (set it to where the HEAVEN systems keep their state)"
            )
        );
        assert_eq!(unset_notice(&ci, &empty), unset_notice(&ci, &unset));
        assert_eq!(unset_notice(&ci, &set), None);
        assert!(
            unset_notice(&chart("waypoint_journey"), &unset)
                .is_some_and(|n| n.contains("so reader waypoint_status reads nothing"))
        );
        assert_eq!(unset_notice(&chart("tdd"), &unset), None, "no such reader");
    }
}

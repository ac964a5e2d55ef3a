//! "Did you mean …?": the known name closest to a mistyped one, so an unknown sequence is an
//! error that names the fix (`compund_intelligence` → `compound_intelligence`).

/// Names longer than this are not compared (a path, pasted text): no name is that close.
const LONGEST: usize = 200;

/// The candidate a user most likely meant by `typed`, if any is close enough: the same name
/// in another case, else the fewest edits (a swap of two letters counts as one) within a
/// third of the name's length (at least two), else the only name that starts with it.
pub fn closest<'a>(typed: &str, candidates: &'a [String]) -> Option<&'a str> {
    let typed = typed.trim();
    if typed.is_empty() || typed.chars().count() > LONGEST {
        return None;
    }
    let lower = typed.to_lowercase();
    if let Some(c) = candidates.iter().find(|c| c.to_lowercase() == lower) {
        return Some(c);
    }
    let budget = (typed.chars().count() / 3).max(2);
    let best = candidates
        .iter()
        .filter(|c| c.chars().count() <= LONGEST)
        .map(|c| (strsim::damerau_levenshtein(&lower, &c.to_lowercase()), c))
        .filter(|(d, _)| *d <= budget)
        .min_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.cmp(b.1)));
    if let Some((_, c)) = best {
        return Some(c);
    }
    let mut starting = candidates
        .iter()
        .filter(|c| typed.chars().count() >= 3 && c.to_lowercase().starts_with(&lower));
    match (starting.next(), starting.next()) {
        (Some(only), None) => Some(only),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names() -> Vec<String> {
        [
            "compound_intelligence",
            "giint_workflow",
            "hope",
            "odyssean_anchor",
            "plan_then_build",
            "tdd",
        ]
        .map(String::from)
        .to_vec()
    }

    #[test]
    fn a_typo_names_the_sequence_meant() {
        let n = names();
        for (typed, meant) in [
            ("compund_intelligence", "compound_intelligence"),
            ("compound_inteligence", "compound_intelligence"),
            ("ocmpound_intelligence", "compound_intelligence"),
            ("Compound_Intelligence", "compound_intelligence"),
            ("hoep", "hope"),
            ("tdd ", "tdd"),
            ("odyssean", "odyssean_anchor"),
            ("plan_then_bulid", "plan_then_build"),
        ] {
            assert_eq!(closest(typed, &n), Some(meant), "{typed}");
        }
    }

    #[test]
    fn nothing_close_suggests_nothing() {
        let n = names();
        for typed in ["", "   ", "x", "deploy", "completely_different", "g"] {
            assert_eq!(closest(typed, &n), None, "{typed:?}");
        }
        assert_eq!(closest("hope", &[]), None);
    }

    #[test]
    fn huge_and_hostile_names_are_not_compared() {
        let n = names();
        assert_eq!(closest(&"a".repeat(1_000_000), &n), None);
        assert_eq!(closest("hope\u{1b}[31m", &n), None);
        assert_eq!(closest("\0\0\0\0", &n), None);
    }
}

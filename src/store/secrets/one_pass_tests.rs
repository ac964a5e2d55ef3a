//! The one-pass scan finds what a scan of every needle at every place finds: a match skipped
//! because an earlier one of the same needle read past it would have added nothing.

use proptest::prelude::*;

use super::{Header, NEEDLES, Needle, Pem, SHORTEST_SECRET, scan, secret_spans};
use crate::store::redact::redact_str;

/// Every needle at every place it occurs, nothing skipped.
fn scan_everywhere(s: &str) -> Vec<(usize, usize)> {
    let b = s.as_bytes();
    let mut spans = Vec::new();
    for &(needle, word) in &NEEDLES.kinds {
        for at in memchr::memmem::find_iter(b, word.as_bytes()) {
            match needle {
                Needle::Prefix(p) => super::token_span(b, at, p, &mut spans),
                Needle::Jwt => super::jwt_span(b, at, &mut spans),
                Needle::Header => Header::default().span(b, at + word.len(), &mut spans),
                Needle::Bearer => super::bearer_span(b, at + word.len(), &mut spans),
                Needle::Pem => Pem::default().span(s, at, &mut spans),
                Needle::Url => super::url_credential_span(b, at, &mut spans),
                Needle::Command(k) => super::commands::command_span(b, at, word, k, &mut spans),
            };
        }
    }
    super::assignment_spans(s, &mut spans);
    super::aws_secret_spans(s, &mut spans);
    spans
}

/// The bytes a list of spans covers, as sorted disjoint ranges.
fn covered(mut spans: Vec<(usize, usize)>) -> Vec<(usize, usize)> {
    spans.retain(|(a, b)| a < b);
    spans.sort_unstable();
    let mut out: Vec<(usize, usize)> = Vec::new();
    for (a, b) in spans {
        match out.last_mut() {
            Some(last) if a <= last.1 => last.1 = last.1.max(b),
            _ => out.push((a, b)),
        }
    }
    out
}

const PIECES: &[&str] = &[
    "sk-",
    "sk-proj-",
    "ghp_",
    "glpat-",
    "xoxb-",
    "AKIA",
    "eyJ",
    ".",
    "Bearer ",
    "Basic ",
    "Authorization",
    ": ",
    "=",
    "-----BEGIN ",
    "RSA PRIVATE KEY",
    "-----\n",
    "-----END ",
    "-----\\n",
    "://",
    "a:b@",
    "@",
    "/",
    "mysql ",
    "sshpass ",
    "docker ",
    "login ",
    "curl ",
    "-p ",
    "-u ",
    "x",
    "0123456789",
    "abcdefghij",
    "ABCDEFGHIJ",
    "_",
    "-",
    " ",
    "'",
    "\"",
    ";",
    "é",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(2000)))]

    #[test]
    fn skipping_matches_inside_earlier_ones_changes_nothing(
        parts in prop::collection::vec(prop::sample::select(PIECES), 0..48)
    ) {
        let s: String = parts.concat();
        prop_assert_eq!(covered(scan(&s)), covered(scan_everywhere(&s)), "{:?}", s);
    }

    /// Below the shortest secret there is nothing to find, so such text is not scanned.
    #[test]
    fn text_shorter_than_any_secret_holds_none(s in "[a-zA-Z0-9:/@'\"=_ -]{0,6}") {
        prop_assume!(s.len() < SHORTEST_SECRET);
        prop_assert_eq!(scan(&s), Vec::<(usize, usize)>::new());
        prop_assert_eq!(secret_spans(&s), Vec::<(usize, usize)>::new());
    }
}

#[test]
fn the_shortest_secrets_are_found() {
    for text in ["auth:'x", "://a:b@"] {
        assert_eq!(text.len(), SHORTEST_SECRET);
        assert!(redact_str(text).is_some(), "{text}");
    }
}

/// GitLab's tokens are 20 characters after `glpat-`: one glued to a word is one too.
#[test]
fn a_gitlab_token_glued_to_a_word_is_redacted_from_20_characters() {
    let token = "glpat-0123456789abcdefghij";
    assert_eq!(
        redact_str(&format!("mcp__gitlab__{token} rest")).as_deref(),
        Some("mcp__gitlab__[REDACTED] rest")
    );
    assert_eq!(
        redact_str(&format!("word{token}")).as_deref(),
        Some("word[REDACTED]")
    );
    // Shorter than a token, or with no digit (a word): kept.
    assert_eq!(redact_str("wordglpat-0123456789abcdefghi"), None);
    assert_eq!(redact_str("wordglpat-abcdefghijabcdefghij"), None);
}

/// Needles repeated end to end are read once each: a long run of them is no slower per byte
/// than prose, and still redacted.
#[test]
fn needles_repeated_end_to_end_are_read_once() {
    let text = format!("{}{}", "sk-".repeat(100_000), "0123456789abcdefghij");
    let r = redact_str(&text).unwrap_or_default();
    assert_eq!(r, "[REDACTED]");
    let jwt = "eyJ.".repeat(100_000);
    assert_eq!(redact_str(&jwt).as_deref(), Some("[REDACTED]"));
}

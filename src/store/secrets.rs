//! Where secrets are in a text: token shapes, JWTs, `Authorization` values, PEM private keys,
//! `password=…`-style assignments, URL credentials and bare AWS secret keys. Hand-written
//! scanners rather than regexes: compiling a regex set costs more than the whole hook budget,
//! and each scanner here is one linear pass.
//!
//! This file finds secrets by their shape; `assignments` finds them by the name they are
//! given, and `commands` as the password flags of known commands.

mod assignments;
mod commands;

use std::collections::HashMap;
use std::sync::LazyLock;

use memchr::memmem::{FindIter, Finder};

use assignments::assignment_spans;
pub(crate) use assignments::sensitive_key;

/// Where a token may start.
#[derive(Clone, Copy, PartialEq)]
enum Start {
    /// After a boundary: a short prefix (`sk-`, `hf_`) also ends ordinary words (`task-…`).
    Word,
    /// Anywhere: a long, distinctive prefix is a token even right after `_` or a letter
    /// (`mcp__x__github_pat_11…` in a tool name).
    Anywhere,
}

/// Token shapes: prefix, minimum length after it, whether `-` is part of the token, and where
/// it may start.
const PREFIXES: &[(&str, usize, bool, Start)] = &[
    ("sk-ant-", 20, true, Start::Anywhere),
    ("sk-proj-", 20, true, Start::Anywhere),
    ("sk-", 20, true, Start::Word),
    ("ghp_", 30, false, Start::Anywhere),
    ("gho_", 30, false, Start::Anywhere),
    ("ghu_", 30, false, Start::Anywhere),
    ("ghs_", 30, false, Start::Anywhere),
    ("ghr_", 30, false, Start::Anywhere),
    ("github_pat_", 30, false, Start::Anywhere),
    ("glpat-", 20, true, Start::Anywhere),
    ("xoxb-", 10, true, Start::Anywhere),
    ("xoxp-", 10, true, Start::Anywhere),
    ("xoxa-", 10, true, Start::Anywhere),
    ("xoxs-", 10, true, Start::Anywhere),
    ("AKIA", 16, false, Start::Word),
    ("ASIA", 16, false, Start::Word),
    ("AIza", 30, true, Start::Word),
    ("npm_", 30, false, Start::Word),
    ("hf_", 30, false, Start::Word),
    // Stripe: secret and restricted keys, live and test, and webhook signing secrets.
    ("sk_live_", 16, false, Start::Word),
    ("sk_test_", 16, false, Start::Word),
    ("rk_live_", 16, false, Start::Word),
    ("rk_test_", 16, false, Start::Word),
    ("whsec_", 24, false, Start::Word),
];

const HEADER_WORDS: &[&str] = &["Authorization", "authorization", "AUTHORIZATION"];
const BEARER_WORDS: &[&str] = &["Bearer ", "bearer ", "BEARER ", "Basic ", "basic "];

fn token_char(b: u8, dash: bool) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || (dash && b == b'-')
}

/// Every needle the scanners look for, each searcher built once per process: a hook scans
/// every string of its payload, and building ~35 searchers for each string cost more than the
/// searches themselves.
static FINDERS: LazyLock<HashMap<&'static str, Finder<'static>>> = LazyLock::new(|| {
    let fixed = ["eyJ", "-----BEGIN ", "://"];
    PREFIXES
        .iter()
        .map(|p| p.0)
        .chain(HEADER_WORDS.iter().copied())
        .chain(BEARER_WORDS.iter().copied())
        .chain(commands::names())
        .chain(fixed)
        .map(|n| (n, Finder::new(n.as_bytes())))
        .collect()
});

fn find_all<'a>(hay: &'a str, needle: &'static str) -> FindIter<'a, 'static> {
    match FINDERS.get(needle) {
        Some(f) => f.find_iter(hay.as_bytes()),
        None => memchr::memmem::find_iter(hay.as_bytes(), needle.as_bytes()),
    }
}

/// Byte spans of secrets in `s`.
pub(crate) fn secret_spans(s: &str) -> Vec<(usize, usize)> {
    let b = s.as_bytes();
    let mut spans = Vec::new();
    let boundary = |at: usize| at == 0 || !token_char(b[at - 1], true);
    for &(prefix, min, dash, starts) in PREFIXES {
        for at in find_all(s, prefix) {
            if starts == Start::Word && !boundary(at) {
                continue;
            }
            let start = at + prefix.len();
            let end = start
                + b[start..]
                    .iter()
                    .take_while(|c| token_char(**c, dash))
                    .count();
            // Glued to a word (`task-proj-…`), a token must also look random: long, with a
            // digit, as real keys are.
            let glued = !boundary(at);
            let long_enough = end - start >= if glued { min.max(30) } else { min };
            if long_enough && (!glued || b[start..end].iter().any(u8::is_ascii_digit)) {
                spans.push((at, end));
            }
        }
    }
    // JWTs: three base64url segments, the first starting `eyJ`.
    for at in find_all(s, "eyJ") {
        if !boundary(at) {
            continue;
        }
        let len = b[at..]
            .iter()
            .take_while(|c| token_char(**c, true) || **c == b'.')
            .count();
        let dots = b[at..at + len].iter().filter(|c| **c == b'.').count();
        if dots >= 2 && len >= 30 {
            spans.push((at, at + len));
        }
    }
    // `Authorization: <anything up to the end of the value>`.
    for word in HEADER_WORDS {
        for at in find_all(s, word) {
            let mut i = at + word.len();
            while i < b.len() && matches!(b[i], b'"' | b'\'' | b':' | b'=' | b' ' | b'\\') {
                i += 1;
            }
            let end = i + b[i..]
                .iter()
                .take_while(|c| !matches!(**c, b'"' | b'\'' | b'\n' | b'\r' | b'\\' | b','))
                .count();
            if end > i {
                spans.push((i, end));
            }
        }
    }
    for word in BEARER_WORDS {
        for at in find_all(s, word) {
            let start = at + word.len();
            let end = start
                + b[start..]
                    .iter()
                    .take_while(|c| {
                        token_char(**c, true) || matches!(**c, b'.' | b'+' | b'/' | b'=')
                    })
                    .count();
            if end - start >= 16 {
                spans.push((start, end));
            }
        }
    }
    // PEM private keys, up to their END line (or the end of the text).
    for at in find_all(s, "-----BEGIN ") {
        let head_end = match s[at..].find("-----\n").or_else(|| s[at..].find("-----\\n")) {
            Some(e) => at + e,
            None => continue,
        };
        if !s[at..head_end].contains("PRIVATE KEY") {
            continue;
        }
        let end = match s[head_end..].find("-----END ") {
            Some(e) => {
                let from = head_end + e + 9;
                s[from..]
                    .find("-----")
                    .map(|x| from + x + 5)
                    .unwrap_or(s.len())
            }
            None => s.len(),
        };
        spans.push((at, end));
    }
    assignment_spans(s, &mut spans);
    commands::command_flag_spans(s, &mut spans);
    url_credential_spans(s, &mut spans);
    aws_secret_spans(s, &mut spans);
    spans
}

/// `scheme://user:password@host`: the password.
fn url_credential_spans(s: &str, spans: &mut Vec<(usize, usize)>) {
    let b = s.as_bytes();
    for at in find_all(s, "://") {
        let from = at + 3;
        let auth_len = b[from..]
            .iter()
            .take_while(|c| !matches!(**c, b'/' | b'@' | b'?' | b'#') && !c.is_ascii_whitespace())
            .count();
        let at_sign = from + auth_len;
        if b.get(at_sign) != Some(&b'@') {
            continue;
        }
        if let Some(colon) = b[from..at_sign].iter().position(|c| *c == b':') {
            let start = from + colon + 1;
            if at_sign > start {
                spans.push((start, at_sign));
            }
        }
    }
}

/// A bare AWS secret access key: exactly 40 characters of base64 with upper case, lower case
/// and digits, standing alone (hex digests are all one case, so git and sha1 ids are kept).
fn aws_secret_spans(s: &str, spans: &mut Vec<(usize, usize)>) {
    let b = s.as_bytes();
    let key_char = |c: u8| c.is_ascii_alphanumeric() || c == b'/' || c == b'+';
    let mut i = 0;
    while i < b.len() {
        if !key_char(b[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < b.len() && key_char(b[i]) {
            i += 1;
        }
        let t = &b[start..i];
        let bounded = (start == 0 || !matches!(b[start - 1], b'_' | b'-' | b'=' | b'.'))
            && (i == b.len() || !matches!(b[i], b'_' | b'-' | b'='));
        if t.len() == 40
            && bounded
            && t.iter().any(u8::is_ascii_uppercase)
            && t.iter().any(u8::is_ascii_lowercase)
            && t.iter().any(u8::is_ascii_digit)
        {
            spans.push((start, i));
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::store::redact::{REDACTED, redact_str};
    use proptest::prelude::*;

    /// Each case: the text, and the secret that must be gone from it.
    const SECRETS: &[(&str, &str)] = &[
        ("mysql -u root --password hunter2xyz db", "hunter2xyz"),
        ("export DB_PASSWORD=s3cr3t!pass && run", "s3cr3t!pass"),
        ("password = \"correct horse\"", "correct horse"),
        (
            "curl -d 'client_secret=abcd1234&grant_type=x' https://x",
            "abcd1234",
        ),
        (r#"{\"api_key\": \"k-1234567\"}"#, "k-1234567"),
        ("GITHUB_TOKEN: tok_abcdef", "tok_abcdef"),
        ("psql postgres://admin:pa55w0rd@db:5432/app", "pa55w0rd"),
        (
            "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "wJalrXUtnFEMI",
        ),
        (
            "the key is wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY today",
            "wJalrXUtnFEMI",
        ),
    ];

    #[test]
    fn inline_assignments_url_credentials_and_aws_secrets_are_redacted() {
        for (text, secret) in SECRETS {
            let r = redact_str(text).unwrap_or_else(|| panic!("not redacted: {text}"));
            assert!(r.contains(REDACTED), "{r}");
            assert!(!r.contains(secret), "{secret} left in {r}");
        }
        let url = redact_str("git clone https://bob:pw1234@host/repo.git").unwrap_or_default();
        assert_eq!(url, "git clone https://bob:[REDACTED]@host/repo.git");
    }

    #[test]
    fn ordinary_text_is_kept() {
        for text in [
            "PASSWORD=$DB_PASS ./run",
            "token=${TOKEN}",
            "the password: is required",
            "\"max_tokens\": 5",
            "git checkout 3f786850e387550fdab836ed7e6dc881de23001b",
            "sha 3F786850E387550FDAB836ED7E6DC881DE23001B",
            "https://example.com/path@v2",
            "mysql --password --verbose",
            "tokens are counted",
        ] {
            assert_eq!(redact_str(text), None, "{text}");
        }
    }

    #[test]
    fn a_huge_text_of_words_is_scanned_once() {
        let text = "password_manager_setting value ".repeat(200_000);
        assert_eq!(redact_str(&text), None);
        let mut with_secret = text.clone();
        with_secret.push_str("password=zzzz9999");
        let r = redact_str(&with_secret).unwrap_or_default();
        assert!(r.ends_with("password=[REDACTED]"));
    }

    proptest! {
        #[test]
        fn any_text_is_redacted_without_panicking(s in "\\PC*", key in "(password|api_key|token)", v in "[a-zA-Z0-9]{4,12}") {
            let _ = redact_str(&s);
            let text = format!("{s} {key}={v} ");
            let r = redact_str(&text).unwrap_or_else(|| text.clone());
            prop_assert!(!r.contains(&format!("{key}={v} ")), "{r}");
        }
    }
}

#[cfg(test)]
#[path = "secrets/cases_tests.rs"]
mod cases_tests;

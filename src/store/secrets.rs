//! Where secrets are in a text: token shapes, JWTs, `Authorization` values, PEM private keys,
//! `password=…`-style assignments, URL credentials and bare AWS secret keys. Hand-written
//! scanners rather than regexes: compiling a regex set costs more than the whole hook budget,
//! and each scanner here is one linear pass.
//!
//! Every needle (token prefixes, `eyJ`, header and scheme words, PEM armour, `://`, command
//! names) is found in one pass of one Aho–Corasick automaton, built once per process; each
//! scanner then looks only where its needle is. A scanner skips a match inside what an
//! earlier match of the same needle already read: the later one would find a part of the
//! same span or nothing (so `sk-sk-sk-…` is read once, not once per match). A text shorter
//! than any secret is not scanned at all: a payload of millions of one-letter strings costs
//! one length check each.
//!
//! This file finds secrets by their shape; `assignments` finds them by the name they are
//! given, and `commands` as the password flags of known commands.

mod assignments;
mod commands;

use std::sync::LazyLock;

use aho_corasick::AhoCorasick;

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

/// A token shape: its prefix, the fewest characters after it, whether `-` is part of the
/// token, where it may start, and the fewest characters after it when glued to a word.
struct Prefix {
    text: &'static str,
    min: usize,
    dash: bool,
    start: Start,
    /// Glued to a word (`task-proj-…`) a token must also look random: long, with a digit, as
    /// real keys are. A prefix no word ends with keeps its own length (GitLab's are 20).
    glued_min: usize,
}

const fn prefix(text: &'static str, min: usize, dash: bool, start: Start) -> Prefix {
    let glued_min = if min > 30 { min } else { 30 };
    Prefix {
        text,
        min,
        dash,
        start,
        glued_min,
    }
}

/// Token shapes.
const PREFIXES: &[Prefix] = &[
    prefix("sk-ant-", 20, true, Start::Anywhere),
    prefix("sk-proj-", 20, true, Start::Anywhere),
    prefix("sk-", 20, true, Start::Word),
    prefix("ghp_", 30, false, Start::Anywhere),
    prefix("gho_", 30, false, Start::Anywhere),
    prefix("ghu_", 30, false, Start::Anywhere),
    prefix("ghs_", 30, false, Start::Anywhere),
    prefix("ghr_", 30, false, Start::Anywhere),
    prefix("github_pat_", 30, false, Start::Anywhere),
    // GitLab personal access tokens are 20 characters after the prefix.
    Prefix {
        glued_min: 20,
        ..prefix("glpat-", 20, true, Start::Anywhere)
    },
    prefix("xoxb-", 10, true, Start::Anywhere),
    prefix("xoxp-", 10, true, Start::Anywhere),
    prefix("xoxa-", 10, true, Start::Anywhere),
    prefix("xoxs-", 10, true, Start::Anywhere),
    prefix("AKIA", 16, false, Start::Word),
    prefix("ASIA", 16, false, Start::Word),
    prefix("AIza", 30, true, Start::Word),
    prefix("npm_", 30, false, Start::Word),
    prefix("hf_", 30, false, Start::Word),
    // Stripe: secret and restricted keys, live and test, and webhook signing secrets.
    prefix("sk_live_", 16, false, Start::Word),
    prefix("sk_test_", 16, false, Start::Word),
    prefix("rk_live_", 16, false, Start::Word),
    prefix("rk_test_", 16, false, Start::Word),
    prefix("whsec_", 24, false, Start::Word),
];

const HEADER_WORDS: &[&str] = &["Authorization", "authorization", "AUTHORIZATION"];
const BEARER_WORDS: &[&str] = &["Bearer ", "bearer ", "BEARER ", "Basic ", "basic "];

/// The shortest text any scanner flags (`auth:'x`, `://a:b@`): shorter ones hold no secret.
const SHORTEST_SECRET: usize = 7;

fn token_char(b: u8, dash: bool) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || (dash && b == b'-')
}

/// What a needle of the automaton starts.
#[derive(Clone, Copy)]
enum Needle {
    Prefix(&'static Prefix),
    Jwt,
    Header,
    Bearer,
    Pem,
    Url,
    /// A known command (its index in `commands`' table).
    Command(usize),
}

/// Every needle in one automaton, and what each one starts.
struct Needles {
    automaton: AhoCorasick,
    kinds: Vec<(Needle, &'static str)>,
}

static NEEDLES: LazyLock<Needles> = LazyLock::new(|| {
    let mut kinds: Vec<(Needle, &'static str)> = PREFIXES
        .iter()
        .map(|p| (Needle::Prefix(p), p.text))
        .collect();
    kinds.push((Needle::Jwt, "eyJ"));
    kinds.extend(HEADER_WORDS.iter().map(|w| (Needle::Header, *w)));
    kinds.extend(BEARER_WORDS.iter().map(|w| (Needle::Bearer, *w)));
    kinds.push((Needle::Pem, "-----BEGIN "));
    kinds.push((Needle::Url, "://"));
    kinds.extend(commands::names().map(|(i, n)| (Needle::Command(i), n)));
    let automaton = AhoCorasick::new(kinds.iter().map(|(_, n)| n))
        .expect("a few dozen fixed ASCII needles always make an automaton");
    Needles { automaton, kinds }
});

/// Byte spans of secrets in `s`.
pub(crate) fn secret_spans(s: &str) -> Vec<(usize, usize)> {
    if s.len() < SHORTEST_SECRET {
        return Vec::new();
    }
    scan(s)
}

/// [`secret_spans`] without the length check.
fn scan(s: &str) -> Vec<(usize, usize)> {
    let b = s.as_bytes();
    let mut spans = Vec::new();
    let needles = &*NEEDLES;
    // Per needle: how far its last match read. A match before that is inside it.
    let mut read_to = vec![0usize; needles.kinds.len()];
    let mut pem = Pem::default();
    let mut header = Header::default();
    for m in needles.automaton.find_overlapping_iter(b) {
        let id = m.pattern().as_usize();
        let (at, word) = (m.start(), needles.kinds[id].1);
        if at < read_to[id] {
            continue;
        }
        read_to[id] = match needles.kinds[id].0 {
            Needle::Prefix(p) => token_span(b, at, p, &mut spans),
            Needle::Jwt => jwt_span(b, at, &mut spans),
            Needle::Header => header.span(b, at + word.len(), &mut spans),
            Needle::Bearer => bearer_span(b, at + word.len(), &mut spans),
            Needle::Pem => pem.span(s, at, &mut spans),
            Needle::Url => url_credential_span(b, at, &mut spans),
            Needle::Command(k) => commands::command_span(b, at, word, k, &mut spans),
        };
    }
    assignment_spans(s, &mut spans);
    aws_secret_spans(s, &mut spans);
    spans
}

fn boundary(b: &[u8], at: usize) -> bool {
    at == 0 || !token_char(b[at - 1], true)
}

/// A token after prefix `p` at `at`; returns where the token ends.
fn token_span(b: &[u8], at: usize, p: &Prefix, spans: &mut Vec<(usize, usize)>) -> usize {
    let glued = !boundary(b, at);
    if p.start == Start::Word && glued {
        return at;
    }
    let start = at + p.text.len();
    let end = start
        + b[start..]
            .iter()
            .take_while(|c| token_char(**c, p.dash))
            .count();
    let long_enough = end - start >= if glued { p.glued_min } else { p.min };
    if long_enough && (!glued || b[start..end].iter().any(u8::is_ascii_digit)) {
        spans.push((at, end));
    }
    end
}

/// JWTs: three base64url segments, the first starting `eyJ`.
fn jwt_span(b: &[u8], at: usize, spans: &mut Vec<(usize, usize)>) -> usize {
    if !boundary(b, at) {
        return at;
    }
    let len = b[at..]
        .iter()
        .take_while(|c| token_char(**c, true) || **c == b'.')
        .count();
    let dots = b[at..at + len].iter().filter(|c| **c == b'.').count();
    if dots >= 2 && len >= 30 {
        spans.push((at, at + len));
    }
    at + len
}

/// `Authorization: <anything up to the end of the value>`. The word may stand inside the
/// value of an earlier one (whose end is then its end too): that value is not read again.
#[derive(Default)]
struct Header {
    /// The last value found.
    last: (usize, usize),
}

impl Header {
    /// The value after the word that ends at `i`. Returns `i`: what follows the word may be a
    /// quote that ends an earlier value and opens its own, so no later match is skipped.
    fn span(&mut self, b: &[u8], mut i: usize, spans: &mut Vec<(usize, usize)>) -> usize {
        let after_word = i;
        while i < b.len() && matches!(b[i], b'"' | b'\'' | b':' | b'=' | b' ' | b'\\') {
            i += 1;
        }
        let (from, to) = self.last;
        if from <= i && i < to {
            return after_word;
        }
        let end = i + b[i..]
            .iter()
            .take_while(|c| !matches!(**c, b'"' | b'\'' | b'\n' | b'\r' | b'\\' | b','))
            .count();
        if end > i {
            spans.push((i, end));
            self.last = (i, end);
        }
        after_word
    }
}

/// `Bearer <credentials>`, from `start` (after the word). Returns how far a later match is
/// inside: another word ends in a space, which the credentials hold none of, so it can only
/// begin in their last few bytes.
fn bearer_span(b: &[u8], start: usize, spans: &mut Vec<(usize, usize)>) -> usize {
    let end = start
        + b[start..]
            .iter()
            .take_while(|c| token_char(**c, true) || matches!(**c, b'.' | b'+' | b'/' | b'='))
            .count();
    if end - start >= 16 {
        spans.push((start, end));
    }
    end.saturating_sub(BEARER_WORDS.iter().map(|w| w.len()).max().unwrap_or(0))
}

/// PEM private keys, up to their END line (or the end of the text). Matches come in order,
/// so each marker searched for is the first one at or after a point that only moves on: it
/// is found once and kept until a match passes it, and the text is read once, however many
/// `-----BEGIN ` it holds.
#[derive(Default)]
struct Pem {
    /// Per marker: where its last search started and what it found (`None`: not after that).
    head: Next,
    head_escaped: Next,
    private: Next,
    end: Next,
    close: Next,
}

/// The first place of a marker at or after a point, remembered for later points.
#[derive(Default)]
struct Next(Option<(usize, Option<usize>)>);

impl Next {
    fn find(&mut self, s: &str, from: usize, marker: &str) -> Option<usize> {
        match self.0 {
            Some((searched, found)) if searched <= from && found.is_none_or(|f| f >= from) => found,
            _ => {
                let found = s[from..].find(marker).map(|x| from + x);
                self.0 = Some((from, found));
                found
            }
        }
    }
}

impl Pem {
    /// The key armoured from `at`. Returns `at`: nothing is skipped.
    fn span(&mut self, s: &str, at: usize, spans: &mut Vec<(usize, usize)>) -> usize {
        let head_end = match self
            .head
            .find(s, at, "-----\n")
            .or_else(|| self.head_escaped.find(s, at, "-----\\n"))
        {
            Some(e) => e,
            None => return at,
        };
        let private = self.private.find(s, at, "PRIVATE KEY");
        if private.is_none_or(|p| p + "PRIVATE KEY".len() > head_end) {
            return at;
        }
        let end = match self.end.find(s, head_end, "-----END ") {
            Some(e) => {
                let from = e + 9;
                self.close
                    .find(s, from, "-----")
                    .map(|x| x + 5)
                    .unwrap_or(s.len())
            }
            None => s.len(),
        };
        spans.push((at, end));
        at
    }
}

/// `scheme://user:password@host`: the password. Its scan stops at the next `/`, so it never
/// reads past another `://`: nothing is skipped (it returns `at`).
fn url_credential_span(b: &[u8], at: usize, spans: &mut Vec<(usize, usize)>) -> usize {
    let from = at + 3;
    let auth_len = b[from..]
        .iter()
        .take_while(|c| !matches!(**c, b'/' | b'@' | b'?' | b'#') && !c.is_ascii_whitespace())
        .count();
    let at_sign = from + auth_len;
    if b.get(at_sign) != Some(&b'@') {
        return at;
    }
    if let Some(colon) = b[from..at_sign].iter().position(|c| *c == b':') {
        let start = from + colon + 1;
        if at_sign > start {
            spans.push((start, at_sign));
        }
    }
    at
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

#[cfg(test)]
#[path = "secrets/one_pass_tests.rs"]
mod one_pass_tests;

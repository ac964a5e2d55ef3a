//! Secrets by name: the value after a sensitive name (`password=…`, `DB_PASSWORD: "…"`,
//! `"api_key": "…"`, `--token …`), whatever the value looks like.

/// Names whose values are secrets whatever they look like (`_`, `-` and case ignored):
/// `api_key`, `DB_PASSWORD`, `client-secret`, `x-auth-token`, `auth`…
pub(crate) fn sensitive_key(key: &str) -> bool {
    const SUFFIXES: &[&str] = &[
        "token",
        "secret",
        "password",
        "passwd",
        "apikey",
        "accesskey",
        "secretkey",
        "privatekey",
        "credentials",
    ];
    // Letters from the end, `_`/`-` skipped, lower-cased: no allocation per word, since every
    // word of a large prompt passes through here.
    let folded = || {
        key.bytes()
            .rev()
            .filter(|c| *c != b'_' && *c != b'-')
            .map(|c| c.to_ascii_lowercase())
    };
    let ends_with = |suffix: &str| folded().take(suffix.len()).eq(suffix.bytes().rev());
    let is = |word: &str| folded().eq(word.bytes().rev());
    // `auth`: Docker's `config.json` and npm's `_auth` keep `user:password` in base64 there.
    SUFFIXES.iter().any(|s| ends_with(s)) || is("authorization") || is("cookie") || is("auth")
}

fn word_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}

/// Where a value ends: a closing quote, white space, a separator, an escaped quote or newline.
fn value_end(b: &[u8], start: usize, quote: Option<u8>) -> usize {
    let mut i = start;
    while i < b.len() {
        let c = b[i];
        let stop = match quote {
            Some(q) => c == q || c == b'\\' || c == b'\n',
            None => {
                c.is_ascii_whitespace() || matches!(c, b'"' | b'\'' | b',' | b';' | b'&' | b'\\')
            }
        };
        if stop {
            break;
        }
        i += 1;
    }
    i
}

/// `password=hunter2`, `DB_PASSWORD: "x"`, `"api_key": "x"` inside a string, `--token abc`,
/// `export AWS_SECRET_ACCESS_KEY=…`: the value after a sensitive name. A value that is a
/// variable reference (`$PASS`, `${PASS}`) is not a secret and is kept.
pub(super) fn assignment_spans(s: &str, spans: &mut Vec<(usize, usize)>) {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if !word_char(b[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < b.len() && word_char(b[i]) {
            i += 1;
        }
        let word = &s[start..i];
        if word.len() < 5 || !sensitive_key(word) {
            continue;
        }
        let flag = word.starts_with("--");
        // Past a closing quote of a quoted name (`"password": …`, escaped or not).
        let mut j = i;
        if j < b.len() && b[j] == b'\\' {
            j += 1;
        }
        if j < b.len() && matches!(b[j], b'"' | b'\'') {
            j += 1;
        }
        while j < b.len() && b[j] == b' ' {
            j += 1;
        }
        let assigned = j < b.len() && matches!(b[j], b'=' | b':');
        if assigned {
            j += 1;
            while j < b.len() && b[j] == b' ' {
                j += 1;
            }
        } else if !(flag && j > i) {
            continue;
        }
        if j < b.len() && b[j] == b'\\' {
            j += 1;
        }
        let quote = match b.get(j) {
            Some(q @ (b'"' | b'\'')) => {
                j += 1;
                Some(*q)
            }
            _ => None,
        };
        let end = value_end(b, j, quote);
        // Unquoted values shorter than 4 are prose ("password: is required"), and a flag's
        // value cannot be another flag.
        let plausible = quote.is_some() || end - j >= 4;
        if end > j
            && plausible
            && !matches!(b[j], b'$' | b'-')
            && !s[j..end].starts_with("[REDACTED]")
        {
            spans.push((j, end));
        }
        i = end.max(i);
    }
}

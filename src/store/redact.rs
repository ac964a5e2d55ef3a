//! Secrets out, sizes bounded, before anything is written. Hand-written scanners rather than
//! regexes: compiling a regex set costs more than the whole hook budget.

use serde_json::Value;

use super::record::ResponseInfo;

pub const REDACTED: &str = "[REDACTED]";

/// Token shapes: prefix, minimum length after it, and whether `-` is part of the token.
const PREFIXES: &[(&str, usize, bool)] = &[
    ("sk-ant-", 20, true),
    ("sk-proj-", 20, true),
    ("sk-", 20, true),
    ("ghp_", 30, false),
    ("gho_", 30, false),
    ("ghu_", 30, false),
    ("ghs_", 30, false),
    ("ghr_", 30, false),
    ("github_pat_", 30, false),
    ("glpat-", 20, true),
    ("xoxb-", 10, true),
    ("xoxp-", 10, true),
    ("xoxa-", 10, true),
    ("xoxs-", 10, true),
    ("AKIA", 16, false),
    ("ASIA", 16, false),
    ("AIza", 30, true),
    ("npm_", 30, false),
    ("hf_", 30, false),
];

const HEADER_WORDS: &[&str] = &["Authorization", "authorization", "AUTHORIZATION"];
const BEARER_WORDS: &[&str] = &["Bearer ", "bearer ", "BEARER ", "Basic ", "basic "];

fn token_char(b: u8, dash: bool) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || (dash && b == b'-')
}

fn find_all<'a>(hay: &'a str, needle: &'a str) -> impl Iterator<Item = usize> + 'a {
    memchr::memmem::find_iter(hay.as_bytes(), needle.as_bytes())
}

/// Byte spans of secrets in `s`.
fn secret_spans(s: &str) -> Vec<(usize, usize)> {
    let b = s.as_bytes();
    let mut spans = Vec::new();
    let boundary = |at: usize| at == 0 || !token_char(b[at - 1], true);
    for &(prefix, min, dash) in PREFIXES {
        for at in find_all(s, prefix) {
            if !boundary(at) {
                continue;
            }
            let start = at + prefix.len();
            let end = start
                + b[start..]
                    .iter()
                    .take_while(|c| token_char(**c, dash))
                    .count();
            if end - start >= min {
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
    spans
}

/// `s` with every secret replaced by `[REDACTED]`; `None` when nothing was found.
pub fn redact_str(s: &str) -> Option<String> {
    let mut spans = secret_spans(s);
    if spans.is_empty() {
        return None;
    }
    spans.sort_unstable();
    let mut out = String::with_capacity(s.len());
    let mut pos = 0;
    for (start, end) in spans {
        if end <= pos {
            continue;
        }
        let start = start.max(pos);
        out.push_str(&s[pos..start]);
        out.push_str(REDACTED);
        pos = end;
    }
    out.push_str(&s[pos..]);
    Some(out)
}

/// Field names whose string values are secrets whatever they look like.
fn sensitive_key(key: &str) -> bool {
    let k: String = key
        .chars()
        .filter(|c| *c != '_' && *c != '-')
        .map(|c| c.to_ascii_lowercase())
        .collect();
    k.ends_with("token")
        || k.ends_with("secret")
        || k.ends_with("password")
        || k.ends_with("apikey")
        || matches!(
            k.as_str(),
            "authorization" | "privatekey" | "passwd" | "cookie"
        )
}

/// Redact every string of a JSON tree in place.
pub fn redact_value(v: &mut Value) {
    match v {
        Value::String(s) => {
            if let Some(r) = redact_str(s) {
                *s = r;
            }
        }
        Value::Array(a) => a.iter_mut().for_each(redact_value),
        Value::Object(m) => {
            for (k, val) in m.iter_mut() {
                if val.is_string() && sensitive_key(k) {
                    *val = Value::String(REDACTED.into());
                } else {
                    redact_value(val);
                }
            }
        }
        _ => {}
    }
}

/// Cut `s` to at most `max` bytes on a character boundary.
pub fn truncate_bytes(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// Shorten every string longer than `max` bytes, saying how much was cut. Returns whether
/// anything was cut.
pub fn bound_strings(v: &mut Value, max: usize) -> bool {
    match v {
        Value::String(s) if s.len() > max => {
            let cut = s.len();
            *s = format!("{}…[seed: truncated, {cut} bytes]", truncate_bytes(s, max));
            true
        }
        Value::Array(a) => a
            .iter_mut()
            .fold(false, |acc, x| bound_strings(x, max) | acc),
        Value::Object(m) => m
            .iter_mut()
            .fold(false, |acc, (_, x)| bound_strings(x, max) | acc),
        _ => false,
    }
}

/// A tool response as recorded: redacted, and when its JSON is larger than `max` bytes, the
/// first `max` bytes of that JSON as a string with `truncated` set. `size` is the full size.
pub fn bound_response(mut v: Value, max: usize) -> ResponseInfo {
    redact_value(&mut v);
    let text = v.to_string();
    let size = text.len() as u64;
    if text.len() <= max {
        return ResponseInfo {
            size,
            truncated: false,
            value: v,
        };
    }
    ResponseInfo {
        size,
        truncated: true,
        value: Value::String(truncate_bytes(&text, max).to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn common_secret_shapes() {
        let cases = [
            "key sk-ant-api03-AAAAAAAAAAAAAAAAAAAAAAAAAAAA end",
            "export GH=ghp_0123456789abcdefghijABCDEFGHIJ0123",
            "AKIAIOSFODNN7EXAMPLE",
            "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
            "curl -H 'Authorization: Bearer abc.def' x",
            "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----",
        ];
        for c in cases {
            let r = redact_str(c).unwrap_or_else(|| panic!("not redacted: {c}"));
            assert!(r.contains(REDACTED), "{r}");
            assert!(
                !r.contains("AAAAAAAAAAAAAAAA") && !r.contains("MIIEow") && !r.contains("abc.def"),
                "{r}"
            );
        }
        assert_eq!(redact_str("risk-free tasks and eyJ alone"), None);
        assert_eq!(redact_str("plain text"), None);
    }

    #[test]
    fn keys_and_bounds() {
        let mut v =
            json!({"api_key": "x", "nested": [{"password": "p", "max_tokens": 5}], "cmd": "ls"});
        redact_value(&mut v);
        assert_eq!(
            v,
            json!({"api_key": REDACTED, "nested": [{"password": REDACTED, "max_tokens": 5}], "cmd": "ls"})
        );
        let r = bound_response(json!({"stdout": "é".repeat(100)}), 51);
        assert!(r.truncated);
        assert_eq!(r.size, 213);
        assert!(r.value.as_str().unwrap().len() <= 51);
        let mut big = json!({"content": "x".repeat(100)});
        assert!(bound_strings(&mut big, 10));
        assert!(
            big["content"]
                .as_str()
                .unwrap()
                .starts_with("xxxxxxxxxx…[seed: truncated, 100")
        );
    }
}

//! Secrets out, sizes bounded, before anything is written (the scanners are in `secrets`).

use serde_json::Value;

use super::record::ResponseInfo;
use super::secrets::{secret_spans, sensitive_key};

pub const REDACTED: &str = "[REDACTED]";

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

/// Longest string kept in a field that is not content: names, ids, paths, reasons, errors,
/// the text of an answer. Content (a tool input, a prompt) has its own, larger bound.
pub const MAX_FIELD: usize = 4 * 1024;

/// Redaction looks this far past a bound before the string is cut there, so a secret that
/// straddles the cut is still found, without scanning the rest of a huge string.
pub const SCAN_MARGIN: usize = 8 * 1024;

/// A string shortened by the scrubber: where it was (a path), its size and the bytes kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cut {
    pub path: String,
    pub size: usize,
    pub kept: usize,
}

/// The one pass every string goes through before it is written: secrets redacted, then the
/// string cut to `max` bytes, which the string says (`…[seed: truncated, N bytes]`) and the
/// returned `Cut` records. `path` names the string for the record.
pub fn scrub_str(s: &mut String, max: usize, path: &str, cuts: &mut Vec<Cut>) {
    if s.len() <= max && redact_str(s).is_none() {
        return;
    }
    *s = scrub_slice(s, max, path, cuts);
}

/// [`scrub_str`] of a borrowed string: only what is kept of it is read (a secret that
/// straddles the cut included) and copied.
pub fn scrub_slice(s: &str, max: usize, path: &str, cuts: &mut Vec<Cut>) -> String {
    let size = s.len();
    let scanned = truncate_bytes(s, max.saturating_add(SCAN_MARGIN));
    let mut out = redact_str(scanned).unwrap_or_else(|| scanned.to_string());
    if size > max || out.len() > max {
        let kept = truncate_bytes(&out, max).len();
        out.truncate(kept);
        out.push_str(&format!("…[seed: truncated, {size} bytes]"));
        cuts.push(Cut {
            path: truncate_bytes(path, MAX_FIELD).to_string(),
            size,
            kept,
        });
    }
    out
}

/// [`scrub_str`] over every string of a JSON tree, keys included (a key is written too; it is
/// redacted and cut to [`MAX_FIELD`], and kept distinct). A string under a sensitive key
/// (`password`, `api_key`…) is redacted whole. Paths are JSON pointers below `path`.
pub fn scrub_value(v: &mut Value, max: usize, path: &str, cuts: &mut Vec<Cut>) {
    let mut p = path.to_string();
    scrub_at(v, max, &mut p, cuts);
}

fn scrub_at(v: &mut Value, max: usize, path: &mut String, cuts: &mut Vec<Cut>) {
    let len = path.len();
    match v {
        Value::String(s) => scrub_str(s, max, path, cuts),
        Value::Array(a) => {
            for (i, x) in a.iter_mut().enumerate() {
                path.push_str(&format!("/{i}"));
                scrub_at(x, max, path, cuts);
                path.truncate(len);
            }
        }
        Value::Object(m) => {
            scrub_keys(m);
            for (k, x) in m.iter_mut() {
                if x.is_string() && sensitive_key(k) {
                    *x = Value::String(REDACTED.into());
                    continue;
                }
                path.push('/');
                path.push_str(&k.replace('~', "~0").replace('/', "~1"));
                scrub_at(x, max, path, cuts);
                path.truncate(len);
            }
        }
        _ => {}
    }
}

/// Keys redacted and bounded in place; the map is rebuilt only when one changes.
fn scrub_keys(m: &mut serde_json::Map<String, Value>) {
    let clean = |k: &str| {
        let mut k = k.to_string();
        scrub_str(&mut k, MAX_FIELD, "", &mut Vec::new());
        k
    };
    if m.keys()
        .all(|k| k.len() <= MAX_FIELD && redact_str(k).is_none())
    {
        return;
    }
    let old = std::mem::take(m);
    for (k, v) in old {
        let base = clean(&k);
        let mut key = base.clone();
        let mut n = 1;
        while m.contains_key(&key) {
            n += 1;
            key = format!("{base} #{n}");
        }
        m.insert(key, v);
    }
}

/// A tool response as recorded: when its JSON is larger than `max` bytes (or the payload
/// kept only a part of it: not `whole`), the first `max` bytes of that JSON as a string with
/// `truncated` set. `size` is the size of its JSON (as sent, when it was not kept whole). `v` is redacted already (the
/// payload's one pass).
pub fn bound_response(v: Value, max: usize, size: u64, whole: bool) -> ResponseInfo {
    let text = v.to_string();
    if whole && text.len() <= max {
        return ResponseInfo {
            size: text.len() as u64,
            truncated: false,
            value: v,
        };
    }
    ResponseInfo {
        size: size.max(text.len() as u64),
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
            "STRIPE=sk_live_AAAAAAAAAAAAAAAAAAAAAAAA",
            "\"rk_live_AAAAAAAAAAAAAAAAAAAAAAAA\"",
            "key: sk_test_AAAAAAAAAAAAAAAAAAAAAAAAAAAA",
            "whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
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
        let r = bound_response(json!({"stdout": "é".repeat(100)}), 51, 213, true);
        assert!(r.truncated);
        assert_eq!(r.size, 213);
        let part = bound_response(json!({"stdout": "é"}), 51, 9000, false);
        assert!(part.truncated, "a result kept in part is recorded as text");
        assert_eq!(part.size, 9000);
        assert!(r.value.as_str().unwrap().len() <= 51);
        let mut big = json!({"content": "x".repeat(100), "edits": [{"a/b": "y".repeat(11)}, "z"]});
        let mut cuts = Vec::new();
        scrub_value(&mut big, 10, "in", &mut cuts);
        assert_eq!(
            cuts,
            [
                Cut {
                    path: "in/content".into(),
                    size: 100,
                    kept: 10
                },
                Cut {
                    path: "in/edits/0/a~1b".into(),
                    size: 11,
                    kept: 10
                },
            ]
        );
        assert_eq!(big["edits"][1], "z");
        assert_eq!(big["content"], "xxxxxxxxxx…[seed: truncated, 100 bytes]");
    }

    /// A key is written like a value: secrets in it are redacted, a huge one is cut, and two
    /// keys that end up alike stay two keys.
    #[test]
    fn keys_are_scrubbed_and_kept_apart() {
        let a = "ghp_0123456789abcdefghijABCDEFGHIJ0123";
        let b = "ghp_9876543210abcdefghijABCDEFGHIJ0123";
        let huge = "k".repeat(MAX_FIELD + 1);
        let mut v = json!({ a: 1, b: 2, huge.clone(): "v", "plain": "password=hunter2" });
        scrub_value(&mut v, 100, "", &mut Vec::new());
        let text = v.to_string();
        assert!(
            !text.contains("0123456789") && !text.contains("hunter2"),
            "{text}"
        );
        assert!(!text.contains(&huge));
        assert_eq!(v.as_object().map(|m| m.len()), Some(4), "{text}");
        assert_eq!(v["[REDACTED] #2"], 2);
    }

    /// Redaction looks past the cut: a secret that straddles it is not half kept.
    #[test]
    fn a_secret_across_the_cut_is_redacted_whole() {
        let mut s = format!(
            "{} ghp_0123456789abcdefghijABCDEFGHIJ0123 tail",
            "x".repeat(94)
        );
        let mut cuts = Vec::new();
        scrub_str(&mut s, 100, "f", &mut cuts);
        assert!(s.starts_with(&format!("{} [RED", "x".repeat(94))), "{s}");
        assert!(!s.contains("ghp_0"), "{s}");
        assert_eq!(cuts[0].size, 138);
        // A huge string is scanned only near the cut, and still cut where it should be.
        let mut big = "y".repeat(50 << 20);
        scrub_str(&mut big, 100, "g", &mut cuts);
        assert_eq!(
            big,
            format!("{}…[seed: truncated, {} bytes]", "y".repeat(100), 50 << 20)
        );
        // A string within the bound and free of secrets is left exactly as it was.
        let mut small = "é".repeat(50);
        scrub_str(&mut small, 100, "h", &mut cuts);
        assert_eq!((small.len(), cuts.len()), (100, 2));
    }
}

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

/// A string shortened by `bound_strings`: where it was (a JSON pointer) and its full size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cut {
    pub path: String,
    pub size: usize,
}

/// Shorten every string longer than `max` bytes, saying in the string how much was cut.
/// Returns each cut, so the record can say what was cut and how big it was.
pub fn bound_strings(v: &mut Value, max: usize) -> Vec<Cut> {
    let mut cuts = Vec::new();
    bound_at(v, max, &mut String::new(), &mut cuts);
    cuts
}

fn bound_at(v: &mut Value, max: usize, path: &mut String, cuts: &mut Vec<Cut>) {
    let len = path.len();
    match v {
        Value::String(s) if s.len() > max => {
            let size = s.len();
            *s = format!("{}…[seed: truncated, {size} bytes]", truncate_bytes(s, max));
            cuts.push(Cut {
                path: path.clone(),
                size,
            });
        }
        Value::Array(a) => {
            for (i, x) in a.iter_mut().enumerate() {
                path.push_str(&format!("/{i}"));
                bound_at(x, max, path, cuts);
                path.truncate(len);
            }
        }
        Value::Object(m) => {
            for (k, x) in m.iter_mut() {
                path.push('/');
                path.push_str(&k.replace('~', "~0").replace('/', "~1"));
                bound_at(x, max, path, cuts);
                path.truncate(len);
            }
        }
        _ => {}
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
        let r = bound_response(json!({"stdout": "é".repeat(100)}), 51);
        assert!(r.truncated);
        assert_eq!(r.size, 213);
        assert!(r.value.as_str().unwrap().len() <= 51);
        let mut big = json!({"content": "x".repeat(100), "edits": [{"a/b": "y".repeat(11)}, "z"]});
        assert_eq!(
            bound_strings(&mut big, 10),
            [
                Cut {
                    path: "/content".into(),
                    size: 100
                },
                Cut {
                    path: "/edits/0/a~1b".into(),
                    size: 11
                },
            ]
        );
        assert_eq!(big["edits"][1], "z");
        assert!(
            big["content"]
                .as_str()
                .unwrap()
                .starts_with("xxxxxxxxxx…[seed: truncated, 100")
        );
    }
}

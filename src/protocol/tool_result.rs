//! A tool's result as the engine may see it: whole and redacted, or only its small top-level
//! members.

use serde_json::Value;

/// Largest tool result (as JSON) handed to the engine: values are kept whole or not at all
/// (a cut YAML file would read as a different one), and the event goes into the log.
pub const MAX_ENGINE_RESPONSE: usize = 16 * 1024;

/// Longest string member a result too large to keep whole still keeps (`codeText`, `url`).
pub const MAX_KEPT_MEMBER: usize = 256;

/// The tool's result as the engine sees it, redacted. One larger than [`MAX_ENGINE_RESPONSE`]
/// (or not `whole`: the payload kept only a part of it) keeps only its top-level numbers,
/// booleans and short strings, each whole (a fetch's `code` says whether it found the page,
/// however long the page), and is `null` when it has none.
pub fn result_for_engine(response: Option<&Value>, whole: bool) -> Value {
    let Some(v) = response else {
        return Value::Null;
    };
    let mut v = if whole && fits(v) {
        v.clone()
    } else {
        match small_members(v) {
            Some(kept) => kept,
            None => return Value::Null,
        }
    };
    crate::store::redact::redact_value(&mut v);
    v
}

/// Measured before copying: a result can be megabytes.
fn fits(v: &Value) -> bool {
    let mut size = SizeCounter(0);
    serde_json::to_writer(&mut size, v).is_ok() && size.0 <= MAX_ENGINE_RESPONSE
}

fn small_members(v: &Value) -> Option<Value> {
    let Value::Object(map) = v else {
        return None;
    };
    let kept: serde_json::Map<String, Value> = map
        .iter()
        .filter(|(k, m)| {
            k.len() <= MAX_KEPT_MEMBER
                && match m {
                    Value::Bool(_) | Value::Number(_) => true,
                    Value::String(s) => s.len() <= MAX_KEPT_MEMBER,
                    _ => false,
                }
        })
        // An object of many small members is large too: its first ones fit.
        .take(MAX_ENGINE_RESPONSE / (3 * MAX_KEPT_MEMBER))
        .map(|(k, m)| (k.clone(), m.clone()))
        .collect();
    (!kept.is_empty()).then_some(Value::Object(kept))
}

/// Counts bytes written, stopping early past the limit.
struct SizeCounter(usize);

impl std::io::Write for SizeCounter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len();
        if self.0 > MAX_ENGINE_RESPONSE {
            return Err(std::io::Error::other("too large"));
        }
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_result_too_large_keeps_its_small_members_whole() {
        let page = "x".repeat(MAX_ENGINE_RESPONSE);
        let fetch = json!({"bytes": 90_000, "code": 404, "codeText": "Not Found", "result": page, "url": "https://x.dev/llms.txt"});
        assert_eq!(
            result_for_engine(Some(&fetch), true),
            json!({"bytes": 90_000, "code": 404, "codeText": "Not Found", "url": "https://x.dev/llms.txt"})
        );
        let small = json!({"code": 200, "result": "# Docs"});
        assert_eq!(result_for_engine(Some(&small), true), small);
        // Nothing small to keep: nothing at all.
        assert_eq!(
            result_for_engine(Some(&json!({"stdout": page})), true),
            Value::Null
        );
        assert_eq!(result_for_engine(Some(&json!([page])), true), Value::Null);
        assert_eq!(result_for_engine(Some(&json!(page)), true), Value::Null);
        assert_eq!(result_for_engine(None, true), Value::Null);
    }

    #[test]
    fn many_small_members_are_bounded_too() {
        let wide: serde_json::Map<String, Value> = (0..10_000)
            .map(|i| (format!("k{i}"), json!("v".repeat(200))))
            .collect();
        let kept = result_for_engine(Some(&Value::Object(wide)), true);
        assert!(fits(&kept), "{}", kept.to_string().len());
        // Kept members are redacted like the rest.
        let secret = json!({"token": "ghp_0123456789abcdefghijABCDEFGHIJ0123", "big": "y".repeat(MAX_ENGINE_RESPONSE)});
        assert!(
            !result_for_engine(Some(&secret), true)
                .to_string()
                .contains("ghp_0123")
        );
    }
}

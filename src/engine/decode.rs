//! Decoding a call's result for `store_as` (see [`Decode`]). The text comes from a hook payload:
//! YAML is parsed under a budget, so a hostile file read by the agent costs little.

use serde_json::Value;

use super::ir::Decode;

/// Deepest YAML nesting decoded; deeper text stays text.
pub const MAX_YAML_DEPTH: usize = 32;
/// Most YAML nodes decoded; larger text stays text.
pub const MAX_YAML_NODES: usize = 20_000;

pub fn value(v: &Value, how: Decode) -> Value {
    match (how, v) {
        (Decode::Json, v) => v.clone(),
        (Decode::Trim, Value::String(s)) => Value::String(s.trim().to_string()),
        (Decode::Yaml, Value::String(s)) => yaml(s).unwrap_or_else(|| v.clone()),
        (Decode::First, Value::Object(o)) => o.values().next().cloned().unwrap_or(Value::Null),
        (Decode::First, Value::Array(a)) => a.first().cloned().unwrap_or(Value::Null),
        (Decode::Fetch, Value::Object(o)) => {
            let mut o = o.clone();
            match o.get("code").and_then(http_status) {
                Some(code) => o.insert("status".into(), Value::from(code)),
                None => o.remove("status"),
            };
            Value::Object(o)
        }
        (_, v) => v.clone(),
    }
}

/// An HTTP status: a number from 100 to 599, or its text (`"404"`).
fn http_status(code: &Value) -> Option<u64> {
    let n = match code {
        Value::Number(n) => n.as_u64(),
        Value::String(s) => s.trim().parse::<u64>().ok(),
        _ => None,
    }?;
    (100..=599).contains(&n).then_some(n)
}

/// One YAML document as JSON, or `None` when it does not parse within the budget.
pub fn yaml(text: &str) -> Option<Value> {
    let options = serde_saphyr::options! {
        budget: serde_saphyr::budget! {
            max_nodes: MAX_YAML_NODES,
            max_depth: MAX_YAML_DEPTH,
            max_aliases: 100,
            max_documents: 1,
        },
        alias_limits: serde_saphyr::alias_limits! {
            max_total_replayed_events: 10_000,
        },
        with_snippet: false,
    };
    serde_saphyr::from_str_with_options::<Value>(text, options).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn results_decode_by_kind() {
        let config = "sources:\n  - id: react\n    type: git\n";
        assert_eq!(
            value(&json!(config), Decode::Yaml),
            json!({"sources": [{"id": "react", "type": "git"}]})
        );
        assert_eq!(value(&json!(" abc123\n"), Decode::Trim), json!("abc123"));
        assert_eq!(
            value(
                &json!({"Which repository?": "https://x/y.git"}),
                Decode::First
            ),
            json!("https://x/y.git")
        );
        assert_eq!(value(&json!({}), Decode::First), Value::Null);
        assert_eq!(value(&json!({"a": 1}), Decode::Json), json!({"a": 1}));
    }

    #[test]
    fn a_fetch_reports_the_status_its_response_gives() {
        let fetched = |code: Value| value(&json!({"code": code, "result": "r"}), Decode::Fetch);
        assert_eq!(fetched(json!(200))["status"], json!(200));
        assert_eq!(fetched(json!(404))["status"], json!(404));
        assert_eq!(fetched(json!("301"))["status"], json!(301));
        assert_eq!(fetched(json!(200))["result"], json!("r"));
        // No status it could be: none, whatever the result claimed as its own `status`.
        for bad in [
            json!(null),
            json!(-1),
            json!(99),
            json!(600),
            json!("OK"),
            json!(2.5),
            json!([200]),
        ] {
            assert_eq!(fetched(bad.clone()).get("status"), None, "{bad}");
        }
        let claims = value(&json!({"status": 200, "result": "r"}), Decode::Fetch);
        assert_eq!(claims.get("status"), None);
        // Not an object: kept as it is, with no status to read.
        assert_eq!(
            value(&json!("Error: 404"), Decode::Fetch),
            json!("Error: 404")
        );
        assert_eq!(value(&Value::Null, Decode::Fetch), Value::Null);
    }

    #[test]
    fn hostile_or_broken_yaml_stays_text() {
        for text in [
            format!("{}1{}", "[".repeat(10_000), "]".repeat(10_000)),
            "a: &a [*a, *a]\nb: [*a, *a, *a, *a, *a, *a, *a, *a]".to_string(),
            "key: [unclosed".to_string(),
            "a: 1\n---\nb: 2\n".to_string(),
        ] {
            assert_eq!(value(&json!(text), Decode::Yaml), json!(text), "{text:.40}");
        }
        // Not text: nothing to parse.
        assert_eq!(value(&json!(3), Decode::Yaml), json!(3));
    }
}

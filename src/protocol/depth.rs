//! Payloads nested deeper than the JSON parser goes. serde_json stops at 128 levels (its
//! guard against stack overflow), and a payload it refuses would get the fail-open answer: a
//! tool call whose input nests 130 arrays deep would pass an enforcing sequence unjudged. So
//! such a payload is parsed again with every array or object past `MAX_DEPTH` replaced by a
//! marker string: the call is judged by its tool name like any other, and the record says
//! how many values were cut.
//!
//! Hand-written: a depth-limited rewrite needs one pass that knows JSON strings and nothing
//! else; no parser crate offers "parse, but flatten past depth N".

/// Levels kept; deeper arrays and objects become [`MARKER`]. Under serde_json's limit (128)
/// with room for the payload's own levels above `tool_input`.
pub const MAX_DEPTH: usize = 100;

/// What stands in for a value nested too deep.
pub const MARKER: &str = "\"[nested deeper than 100 levels]\"";

/// `text` with every array or object that opens deeper than `max` levels replaced by
/// [`MARKER`], and how many were replaced; `None` when nothing is that deep. Linear in the
/// length of `text`; strings (with their escapes) are copied as they are. Text that is not
/// JSON stays not JSON: the parser reports it as before.
pub fn flatten(text: &str, max: usize) -> Option<(String, usize)> {
    let b = text.as_bytes();
    let mut out: Option<String> = None;
    let mut copied = 0; // bytes of `text` already in `out`
    let mut depth = 0usize;
    let mut cut = 0usize;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' => i = skip_string(b, i),
            b'{' | b'[' if depth == max => {
                let end = skip_value(b, i);
                let o = out.get_or_insert_with(|| String::with_capacity(text.len()));
                o.push_str(&text[copied..i]);
                o.push_str(MARKER);
                copied = end;
                cut += 1;
                i = end;
            }
            b'{' | b'[' => {
                depth += 1;
                i += 1;
            }
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                i += 1;
            }
            _ => i += 1,
        }
    }
    let mut o = out?;
    o.push_str(&text[copied..]);
    Some((o, cut))
}

/// The index just past the string that opens at `start` (or the end of the text).
pub(crate) fn skip_string(b: &[u8], start: usize) -> usize {
    let mut i = start + 1;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    b.len()
}

/// The index just past the array or object that opens at `start` (or the end of the text).
fn skip_value(b: &[u8], start: usize) -> usize {
    let mut depth = 0usize;
    let mut i = start;
    while i < b.len() {
        match b[i] {
            b'"' => {
                i = skip_string(b, i);
                continue;
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth -= 1;
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    b.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn nested(levels: usize) -> String {
        format!("{}1{}", "[".repeat(levels), "]".repeat(levels))
    }

    #[test]
    fn shallow_text_is_left_alone() {
        assert_eq!(flatten(r#"{"a":[1,{"b":"[[[["}]}"#, 3), None);
    }

    #[test]
    fn values_past_the_limit_become_the_marker() {
        let (t, n) = flatten(r#"{"a":[[1],[2,[3]]],"b":"]]"}"#, 2).expect("cut");
        assert_eq!(n, 2);
        assert_eq!(t, format!(r#"{{"a":[{MARKER},{MARKER}],"b":"]]"}}"#));
        let v: serde_json::Value = serde_json::from_str(&t).expect("parses");
        assert_eq!(v["b"], "]]");
    }

    #[test]
    fn brackets_and_escaped_quotes_inside_strings_do_not_count() {
        let text = r#"{"s":"\"[{[{","t":[["x\\"]]}"#;
        let (t, n) = flatten(text, 2).expect("cut");
        assert_eq!(n, 1);
        assert_eq!(t, format!(r#"{{"s":"\"[{{[{{","t":[{MARKER}]}}"#));
    }

    #[test]
    fn deep_payloads_parse_after_flattening() {
        for levels in [130, 100_000] {
            let text = format!(
                r#"{{"tool_name":"Bash","tool_input":{{"a":{}}}}}"#,
                nested(levels)
            );
            assert!(serde_json::from_str::<serde_json::Value>(&text).is_err());
            let (t, n) = flatten(&text, MAX_DEPTH).expect("cut");
            assert_eq!(n, 1);
            let v: serde_json::Value = serde_json::from_str(&t).expect("parses");
            assert_eq!(v["tool_name"], "Bash");
        }
    }

    #[test]
    fn unbalanced_text_stays_unparseable() {
        let (t, _) = flatten("[[[[", 2).expect("cut");
        assert!(serde_json::from_str::<serde_json::Value>(&t).is_err());
        assert_eq!(flatten("]]]]}", 2), None);
        assert_eq!(flatten("", 2), None);
        assert_eq!(flatten("\"unterminated [[[", 1), None);
    }

    fn json() -> impl Strategy<Value = serde_json::Value> {
        let leaf = prop_oneof![
            Just(serde_json::Value::Null),
            any::<i32>().prop_map(serde_json::Value::from),
            "[\\[\\]{}\"\\\\a:, é]{0,8}".prop_map(serde_json::Value::from),
        ];
        leaf.prop_recursive(12, 64, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(serde_json::Value::from),
                prop::collection::btree_map("[a-z\\[{\"]{0,3}", inner, 0..4)
                    .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest! {
        /// Any text: no panic, and a cut is always counted.
        #[test]
        fn never_panics(s in "[\\[\\]{}\"\\\\a,:1 é]{0,200}", max in 0usize..6) {
            if let Some((t, n)) = flatten(&s, max) {
                prop_assert!(n > 0 && t.contains(MARKER));
            }
        }

        /// JSON stays JSON, and is left alone when it is shallow enough.
        #[test]
        fn json_stays_json(v in json(), max in 0usize..8) {
            let text = serde_json::to_string(&v).expect("serializes");
            match flatten(&text, max) {
                None => prop_assert!(depth_of(&v) <= max),
                Some((t, _)) => {
                    prop_assert!(depth_of(&v) > max);
                    let back: serde_json::Value = serde_json::from_str(&t).expect("still JSON");
                    prop_assert!(depth_of(&back) <= max);
                }
            }
        }
    }

    /// Levels of arrays and objects.
    fn depth_of(v: &serde_json::Value) -> usize {
        match v {
            serde_json::Value::Array(a) => 1 + a.iter().map(depth_of).max().unwrap_or(0),
            serde_json::Value::Object(o) => 1 + o.values().map(depth_of).max().unwrap_or(0),
            _ => 0,
        }
    }
}

//! A payload's top level, split into its fields without reading them: each is the raw text of
//! its value, parsed later within its own limits (`bounded`). Skipping a value checks that it
//! is JSON and finds its end, nothing more, so a huge field costs one scan of its bytes.

use std::borrow::Cow;
use std::fmt;

use serde::de::{Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;

use super::bounded::Key;

/// The top level of a payload.
pub enum Top<'a> {
    /// An object: its members in order (a repeated key appears twice; the last one counts).
    Object(Vec<(Cow<'a, str>, &'a RawValue)>),
    /// Any other JSON value: its kind, for the message ("an array").
    Other(&'static str),
}

/// Split `text` (one JSON value) into its top-level members whose key is `wanted`; the
/// others are checked and skipped, not kept (a payload of millions of unknown members costs
/// a scan, not a list).
pub fn top_level<'a>(
    text: &'a str,
    wanted: &dyn Fn(&str) -> bool,
) -> Result<Top<'a>, serde_json::Error> {
    match text.trim_start().as_bytes().first() {
        Some(b'{') => {
            let mut de = serde_json::Deserializer::from_str(text);
            let members = de.deserialize_map(Members(wanted))?;
            de.end()?;
            Ok(Top::Object(members))
        }
        first => {
            serde_json::from_str::<&RawValue>(text)?;
            Ok(Top::Other(match first {
                Some(b'[') => "an array",
                Some(b'"') => "a string",
                Some(b't' | b'f') => "a boolean",
                Some(b'n') => "null",
                _ => "a number",
            }))
        }
    }
}

struct Members<'w>(&'w dyn Fn(&str) -> bool);

impl<'de> Visitor<'de> for Members<'_> {
    type Value = Vec<(Cow<'de, str>, &'de RawValue)>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut out = Vec::new();
        while let Some(Key(k)) = map.next_key::<Key<'de>>()? {
            if (self.0)(&k) {
                out.push((k, map.next_value::<&'de RawValue>()?));
            } else {
                // As raw text: the scan has no nesting limit, unlike a parse.
                map.next_value::<&'de RawValue>()?;
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Result<Vec<String>, String> {
        match top_level(text, &|k| k != "skipped").map_err(|e| e.to_string())? {
            Top::Object(m) => Ok(m.iter().map(|(k, v)| format!("{k}={}", v.get())).collect()),
            Top::Other(kind) => Err(kind.to_string()),
        }
    }

    #[test]
    fn members_are_split_unread() {
        assert_eq!(
            kinds(r#" {"a": [1, {"b": 2}], "skipped": [1], "a": "x", "c\u0041": null} "#),
            Ok(vec![
                r#"a=[1, {"b": 2}]"#.to_string(),
                r#"a="x""#.to_string(),
                "cA=null".to_string()
            ])
        );
        // Nesting and numbers are checked when a member is read, not here.
        let deep = format!(
            r#"{{"t":{}1{},"n":1e400,"skipped":{}1{}}}"#,
            "[".repeat(500),
            "]".repeat(500),
            "[".repeat(500),
            "]".repeat(500)
        );
        assert_eq!(kinds(&deep).map(|m| m.len()), Ok(2));
    }

    #[test]
    fn other_values_are_named_and_broken_text_refused() {
        assert_eq!(kinds("[1]"), Err("an array".into()));
        assert_eq!(kinds(" \"s\""), Err("a string".into()));
        assert_eq!(kinds("true"), Err("a boolean".into()));
        assert_eq!(kinds("null"), Err("null".into()));
        assert_eq!(kinds("-1"), Err("a number".into()));
        for broken in [
            "{",
            "{\"a\":}",
            "{} x",
            "nope",
            "[1,]",
            "{\"skipped\":[1,]}",
        ] {
            assert!(top_level(broken, &|_| true).is_err(), "{broken}");
        }
    }
}

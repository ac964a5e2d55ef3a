//! JSON parsed into a `serde_json::Value`, refusing duplicate keys. serde_json keeps the last
//! of two equal keys silently, so a sequence that defines a tool twice would lose the first
//! definition without a word; here the second key is an error at its line and column.

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// A JSON value whose objects had no duplicate keys.
pub struct StrictValue(pub Value);

impl<'de> Deserialize<'de> for StrictValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<StrictValue, D::Error> {
        d.deserialize_any(StrictVisitor).map(StrictValue)
    }
}

struct StrictVisitor;

impl<'de> Visitor<'de> for StrictVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        // serde_json never hands out a non-finite float; `Null` keeps this total anyway.
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        while let Some(StrictValue(v)) = seq.next_element()? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if out.contains_key(&key) {
                // serde_json adds the position it has reached: just after this key.
                return Err(de::Error::custom(format!(
                    "duplicate key `{key}`: each key may appear once in an object"
                )));
            }
            let StrictValue(v) = map.next_value()?;
            out.insert(key, v);
        }
        Ok(Value::Object(out))
    }
}

/// Parse `text`, refusing duplicate keys; errors carry serde_json's line and column.
pub fn from_str(text: &str) -> Result<Value, serde_json::Error> {
    serde_json::from_str::<StrictValue>(text).map(|s| s.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_the_same_as_serde_json_gives() {
        let text =
            r#"{"a": [1, -2, 3.5, true, null, "x"], "b": {"c": {}}, "d": 18446744073709551615}"#;
        let loose: Value = serde_json::from_str(text).expect("valid");
        assert_eq!(from_str(text).expect("valid"), loose);
    }

    #[test]
    fn a_duplicate_key_is_an_error_at_the_second_key() {
        let e = from_str("{\n  \"a\": 1,\n  \"b\": {\"x\": 1, \"x\": 2}\n}").expect_err("dup");
        assert!(e.to_string().contains("duplicate key `x`"), "{e}");
        assert_eq!(e.line(), 3);
        assert!(e.column() >= 17, "after the second `x`: {}", e.column());
        // The same key in two different objects is fine.
        assert!(from_str(r#"{"a": {"x": 1}, "b": {"x": 2}}"#).is_ok());
    }
}

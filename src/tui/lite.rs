//! What the timeline and the bookkeeping part of the fold read from a record ([`Rec`]), for the
//! owned [`Record`] and for a borrowed parse of a log line ([`LiteRef`]).
//!
//! The backlog a saved snapshot covers is not stepped through the engines, so its lines are
//! parsed borrowed: strings point into the line, the tool input is reduced to its one-line
//! summary while parsing (no value tree for a large `Write`), the response and extras are
//! skipped unread. That is most of what a first frame on a long session costs.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::Value;

use crate::engine::verdict::DeniedBy;
use crate::engine::{Decision, EventKind, Phase};
use crate::store::failures;
use crate::store::record::Record;

use super::rows::DETAIL_CHARS;
use super::sanitize;

/// A verdict as the dashboard reads it.
#[derive(Debug, Clone, Copy)]
pub struct VerdictView<'a> {
    pub blocks: bool,
    pub warning: bool,
    pub ask: bool,
    pub reason: &'a str,
    pub denied_by: Option<&'a DeniedBy>,
    pub repeat: u32,
}

impl<'a> VerdictView<'a> {
    pub fn of(v: &'a crate::engine::Verdict) -> VerdictView<'a> {
        VerdictView {
            blocks: v.blocks(),
            warning: v.warning.is_some(),
            ask: v.decision == Decision::Ask,
            reason: &v.reason,
            denied_by: v.denied_by.as_ref(),
            repeat: v.repeat,
        }
    }
}

pub trait Rec {
    fn ts(&self) -> &str;
    fn hook(&self) -> &str;
    fn phase(&self) -> Option<Phase>;
    fn agent(&self) -> Option<&str>;
    fn tool_use_id(&self) -> Option<&str>;
    fn error(&self) -> Option<&str>;
    /// What kind of seed's own failure this is (a lapse or a fail-closed refusal).
    fn failure(&self) -> Option<failures::Kind>;
    fn ms(&self) -> Option<f64>;
    /// The event's kind and name.
    fn event(&self) -> Option<(EventKind, &str)>;
    /// The event input as one sanitized line.
    fn summary(&self) -> Cow<'_, str>;
    fn verdict(&self) -> Option<VerdictView<'_>>;
    fn for_each_fact(&self, f: &mut dyn FnMut(&str, &Value));
    fn sequences(&self) -> Vec<&str>;
}

impl Rec for Record {
    fn ts(&self) -> &str {
        &self.ts
    }
    fn hook(&self) -> &str {
        &self.hook
    }
    fn phase(&self) -> Option<Phase> {
        self.phase
    }
    fn agent(&self) -> Option<&str> {
        self.agent.as_deref()
    }
    fn tool_use_id(&self) -> Option<&str> {
        self.tool_use_id.as_deref()
    }
    fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }
    fn failure(&self) -> Option<failures::Kind> {
        failures::of(self)
    }
    fn ms(&self) -> Option<f64> {
        self.ms
    }
    fn event(&self) -> Option<(EventKind, &str)> {
        self.event.as_ref().map(|e| (e.kind, e.name.as_str()))
    }
    fn summary(&self) -> Cow<'_, str> {
        match &self.event {
            Some(e) => Cow::Owned(sanitize::summarize(&e.input, DETAIL_CHARS)),
            None => Cow::Borrowed(""),
        }
    }
    fn verdict(&self) -> Option<VerdictView<'_>> {
        self.verdict.as_ref().map(VerdictView::of)
    }
    fn for_each_fact(&self, f: &mut dyn FnMut(&str, &Value)) {
        for (k, v) in &self.facts {
            f(k, v);
        }
    }
    fn sequences(&self) -> Vec<&str> {
        self.sequences.iter().map(String::as_str).collect()
    }
}

/// A string borrowed from the line when it has no escapes, owned when it has.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct S<'a>(pub Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for S<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<S<'a>, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = S<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<S<'de>, E> {
                Ok(S(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<S<'de>, E> {
                Ok(S(Cow::Owned(v.to_string())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<S<'de>, E> {
                Ok(S(Cow::Owned(v)))
            }
        }
        d.deserialize_str(V)
    }
}

#[derive(Deserialize)]
struct LiteEvent<'a> {
    kind: EventKind,
    #[serde(borrow, default)]
    name: S<'a>,
    #[serde(default, deserialize_with = "summary")]
    input: String,
}

#[derive(Deserialize)]
struct LiteVerdict<'a> {
    decision: Decision,
    #[serde(borrow, default)]
    reason: S<'a>,
    #[serde(borrow, default)]
    warning: Option<S<'a>>,
    #[serde(default)]
    denied_by: Option<DeniedBy>,
    #[serde(default)]
    repeat: u32,
}

/// A log line parsed borrowed (see the module docs).
#[derive(Deserialize)]
pub struct LiteRef<'a> {
    #[serde(borrow, default)]
    ts: S<'a>,
    #[serde(borrow, default)]
    agent: Option<S<'a>>,
    #[serde(borrow, default)]
    hook: S<'a>,
    #[serde(default)]
    phase: Option<Phase>,
    #[serde(borrow, default)]
    event: Option<LiteEvent<'a>>,
    #[serde(borrow, default)]
    tool_use_id: Option<S<'a>>,
    #[serde(borrow, default, deserialize_with = "facts")]
    facts: Vec<(S<'a>, Value)>,
    #[serde(borrow, default)]
    sequences: Vec<S<'a>>,
    #[serde(borrow, default)]
    verdict: Option<LiteVerdict<'a>>,
    #[serde(default)]
    ms: Option<f64>,
    #[serde(borrow, default)]
    error: Option<S<'a>>,
    /// Read only for a failure record (its fail mode, whether it ran out of time).
    #[serde(borrow, default)]
    extra: Option<&'a serde_json::value::RawValue>,
}

impl<'a> LiteRef<'a> {
    pub fn parse(line: &'a [u8]) -> Result<LiteRef<'a>, String> {
        serde_json::from_slice(line).map_err(|e| e.to_string())
    }
}

impl Rec for LiteRef<'_> {
    fn ts(&self) -> &str {
        &self.ts.0
    }
    fn hook(&self) -> &str {
        &self.hook.0
    }
    fn phase(&self) -> Option<Phase> {
        self.phase
    }
    fn agent(&self) -> Option<&str> {
        self.agent.as_ref().map(|s| &*s.0)
    }
    fn tool_use_id(&self) -> Option<&str> {
        self.tool_use_id.as_ref().map(|s| &*s.0)
    }
    fn error(&self) -> Option<&str> {
        self.error.as_ref().map(|s| &*s.0)
    }
    fn failure(&self) -> Option<failures::Kind> {
        let error = self.error()?;
        let extra: Value = self
            .extra
            .and_then(|x| serde_json::from_str(x.get()).ok())
            .unwrap_or(Value::Null);
        failures::kind(
            self.hook(),
            Some(error),
            extra.get("fail").and_then(Value::as_str),
            extra.get(failures::BUDGET_KEY).is_some(),
        )
    }
    fn ms(&self) -> Option<f64> {
        self.ms
    }
    fn event(&self) -> Option<(EventKind, &str)> {
        self.event.as_ref().map(|e| (e.kind, &*e.name.0))
    }
    fn summary(&self) -> Cow<'_, str> {
        Cow::Borrowed(self.event.as_ref().map_or("", |e| e.input.as_str()))
    }
    fn verdict(&self) -> Option<VerdictView<'_>> {
        self.verdict.as_ref().map(|v| VerdictView {
            blocks: matches!(v.decision, Decision::Deny | Decision::Block),
            warning: v.warning.is_some(),
            ask: v.decision == Decision::Ask,
            reason: &v.reason.0,
            denied_by: v.denied_by.as_ref(),
            repeat: v.repeat,
        })
    }
    fn for_each_fact(&self, f: &mut dyn FnMut(&str, &Value)) {
        for (k, v) in &self.facts {
            f(&k.0, v);
        }
    }
    fn sequences(&self) -> Vec<&str> {
        self.sequences.iter().map(|s| &*s.0).collect()
    }
}

fn facts<'de: 'a, 'a, D: Deserializer<'de>>(d: D) -> Result<Vec<(S<'a>, Value)>, D::Error> {
    struct V;
    impl<'de> Visitor<'de> for V {
        type Value = Vec<(S<'de>, Value)>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a map of facts")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut out = Vec::new();
            while let Some((k, v)) = map.next_entry::<S<'de>, Value>()? {
                out.push((k, v));
            }
            Ok(out)
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(Vec::new())
        }
    }
    d.deserialize_any(V)
}

/// The input reduced while parsing to what [`sanitize::summarize`] would show.
fn summary<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    d.deserialize_any(Summary)
}

struct Summary;

impl<'de> Visitor<'de> for Summary {
    type Value = String;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a tool input")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<String, E> {
        Ok(sanitize::clean(v, DETAIL_CHARS))
    }

    fn visit_unit<E: de::Error>(self) -> Result<String, E> {
        Ok(String::new())
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<String, E> {
        Ok(v.to_string())
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<String, E> {
        Ok(v.to_string())
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<String, E> {
        Ok(v.to_string())
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<String, E> {
        Ok(v.to_string())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<String, A::Error> {
        let mut items = Vec::new();
        while let Some(v) = seq.next_element::<Value>()? {
            if items.len() < 8 {
                items.push(v);
            }
        }
        Ok(sanitize::summarize(&Value::Array(items), DETAIL_CHARS))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<String, A::Error> {
        // The most telling string field wins; without one, the first values as compact JSON.
        let mut best: Option<(usize, String)> = None;
        let mut small = serde_json::Map::new();
        while let Some(key) = map.next_key::<S<'de>>()? {
            let key = key.0;
            let rank = sanitize::SUMMARY_KEYS.iter().position(|k| *k == key);
            match rank {
                Some(r) if best.as_ref().is_none_or(|(b, _)| r < *b) => {
                    let v: Value = map.next_value()?;
                    match v {
                        Value::String(s) => best = Some((r, sanitize::clean(&s, DETAIL_CHARS))),
                        other => {
                            small.insert(key.into_owned(), other);
                        }
                    }
                }
                _ if best.is_none() && small.len() < 8 => {
                    let v: Value = map.next_value()?;
                    small.insert(key.into_owned(), v);
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(match best {
            Some((_, s)) => s,
            None => sanitize::summarize(&Value::Object(small), DETAIL_CHARS),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn same(line: &str) {
        let full: Record = serde_json::from_str(line).unwrap();
        let lite = LiteRef::parse(line.as_bytes()).unwrap();
        assert_eq!(full.summary(), lite.summary(), "{line}");
        assert_eq!(Rec::event(&full), Rec::event(&lite));
        assert_eq!(full.hook(), lite.hook());
        assert_eq!(full.agent(), lite.agent());
        assert_eq!(full.error(), lite.error());
        let (a, b) = (full.verdict(), lite.verdict());
        assert_eq!(
            a.map(|v| (v.blocks, v.warning, v.ask, v.reason, v.repeat)),
            b.map(|v| (v.blocks, v.warning, v.ask, v.reason, v.repeat))
        );
        let mut fa = Vec::new();
        full.for_each_fact(&mut |k, v| fa.push((k.to_string(), v.clone())));
        let mut fb = Vec::new();
        lite.for_each_fact(&mut |k, v| fb.push((k.to_string(), v.clone())));
        assert_eq!(fa, fb);
    }

    #[test]
    fn the_borrowed_parse_reads_what_the_full_one_does() {
        let v = json!({"kind":"deny","decision":"deny","mode":"enforce","reason":"no \"x\"","warning":null,"denied_by":{"state":"s","tier":"t","rule":"r"},"next":null,"repeat":2,"escalated":false});
        for input in [
            json!({"command": "ls \u{1b}[31m"}),
            json!({"n": 1, "b": [1, 2]}),
            json!("text"),
            json!([1, "a"]),
            Value::Null,
        ] {
            let line = json!({"v":1,"ts":"2026-01-01T00:00:00Z","hook":"PreToolUse","agent":"a\\b","phase":"gate",
                "event":{"kind":"tool","name":"Bash","input":input},"tool_use_id":"t","facts":{"x":1,"y":"z"},
                "sequences":["s"],"verdict":v,"ms":1.5,"error":"e\n","response":{"size":3,"truncated":false,"value":[1,2,3]},"extra":{}});
            same(&line.to_string());
        }
        same(r#"{"hook":"SessionStart"}"#);
    }
}

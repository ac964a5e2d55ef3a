//! A lighter parse of log lines for the backlog a saved snapshot already covers: the engine does
//! not step those records, so their tool input is reduced to the one-line summary the timeline
//! shows while parsing (no value tree for a large `Write`), and the tool response and extras are
//! skipped unread.

use std::fmt;

use serde::Deserialize;
use serde::de::{self, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use crate::engine::{Event, EventKind, Facts, Phase, Verdict};
use crate::store::record::{RECORD_VERSION, Record};

use super::rows::DETAIL_CHARS;
use super::sanitize;

#[derive(Deserialize)]
struct LiteEvent {
    kind: EventKind,
    #[serde(default)]
    name: String,
    #[serde(default, deserialize_with = "summary")]
    input: String,
}

#[derive(Deserialize)]
struct LiteRecord {
    #[serde(default)]
    ts: String,
    #[serde(default)]
    session: String,
    #[serde(default)]
    agent: Option<String>,
    #[serde(default)]
    hook: String,
    #[serde(default)]
    phase: Option<Phase>,
    #[serde(default)]
    event: Option<LiteEvent>,
    #[serde(default)]
    tool_use_id: Option<String>,
    #[serde(default)]
    facts: Facts,
    #[serde(default)]
    sequences: Vec<String>,
    #[serde(default)]
    verdict: Option<Verdict>,
    #[serde(default)]
    ms: Option<f64>,
    #[serde(default)]
    error: Option<String>,
}

/// A log line as a record whose event input is its summary string.
pub fn parse(line: &[u8]) -> Result<Record, String> {
    let l: LiteRecord = serde_json::from_slice(line).map_err(|e| e.to_string())?;
    Ok(Record {
        v: RECORD_VERSION,
        ts: l.ts,
        session: l.session,
        agent: l.agent,
        hook: l.hook,
        phase: l.phase,
        event: l.event.map(|e| Event {
            kind: e.kind,
            name: e.name,
            input: if e.input.is_empty() {
                Value::Null
            } else {
                Value::String(e.input)
            },
        }),
        tool_use_id: l.tool_use_id,
        facts: l.facts,
        sequences: l.sequences,
        verdict: l.verdict,
        response: None,
        ms: l.ms,
        error: l.error,
        extra: Value::Null,
    })
}

/// The input reduced while parsing to what [`sanitize::summarize`] would show.
fn summary<'de, D: de::Deserializer<'de>>(d: D) -> Result<String, D::Error> {
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
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok("[…]".into())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<String, A::Error> {
        // The most telling string field wins; without one, the small values as compact JSON.
        let mut best: Option<(usize, String)> = None;
        let mut small = serde_json::Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let rank = sanitize::SUMMARY_KEYS.iter().position(|k| *k == key);
            match rank {
                Some(r) if best.as_ref().is_none_or(|(b, _)| r < *b) => {
                    let v: Value = map.next_value()?;
                    match v {
                        Value::String(s) => best = Some((r, sanitize::clean(&s, DETAIL_CHARS))),
                        other => {
                            small.insert(key, other);
                        }
                    }
                }
                _ if best.is_none() && small.len() < 8 => {
                    let v: Value = map.next_value()?;
                    small.insert(key, v);
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

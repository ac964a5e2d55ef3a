//! A payload's values kept as they are parsed: redacted, every string cut to its bound, and
//! past a budget of bytes the rest skipped unread, so what is not kept costs a scan of its
//! bytes and nothing else (no value built, no string scanned for secrets, no copy). A payload
//! of 128 MiB of one-letter strings keeps a megabyte of them; a tool's result of 10 MB keeps
//! what the record can hold and how large it was.
//!
//! The rules are [`crate::store::redact::scrub_value`]'s (secrets out, strings cut with a
//! marker and listed as cuts, keys redacted and kept distinct, a string under a sensitive key
//! redacted whole), applied while parsing instead of over a parsed tree.

use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt::{self, Write as _};

use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::repair::{self, Repairs};
use crate::store::redact::{Cut, MAX_FIELD, REDACTED, scrub_slice};
use crate::store::secrets::sensitive_key;

/// How much of a value is kept.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Longest string kept (a longer one is cut there).
    pub max_string: usize,
    /// Bytes of values kept in all (each value counts [`PER_VALUE`] bytes besides its text);
    /// past them the rest of every array and object is skipped.
    pub budget: usize,
    /// A cut string says so (`…[seed: truncated, N bytes]`) and every cut is listed; else
    /// cuts are silent (a tool's result, recorded as its first bytes and whole size).
    pub say_cuts: bool,
}

/// What one value costs of the budget besides its text: a million one-letter strings are
/// megabytes of values, not of text.
const PER_VALUE: usize = 16;

/// Top-level members of a field kept past the budget when they are scalars this short (a
/// fetch's `code` after its megabytes of `content`), at most [`SMALL_MEMBERS`] of them.
const SMALL_MEMBER: usize = 256;
const SMALL_MEMBERS: usize = 64;

/// What was kept of one value.
#[derive(Debug)]
pub struct Kept {
    pub value: Value,
    /// Something was cut or skipped.
    pub cut: bool,
    /// What had to be rewritten for it to parse (nesting too deep, numbers too large).
    pub repairs: Repairs,
}

/// Parse `raw` (one JSON value, already checked to be JSON) keeping what `limits` allow;
/// `path` names it in `cuts`. Nesting past the parser's limit and numbers past `f64`'s are
/// rewritten and the value read again (`repair::refit`), so neither makes it unreadable.
pub fn keep(raw: &RawValue, limits: Limits, path: &str, cuts: &mut Vec<Cut>) -> Kept {
    let mut text = Cow::Borrowed(raw.get());
    let mut repairs = Repairs::default();
    // Each rewrite removes one kind of error: two are enough, a third guards against a loop.
    for _ in 0..3 {
        let before = cuts.len();
        let mut walk = Walk {
            limits,
            left: limits.budget,
            path: path.to_string(),
            cuts: &mut *cuts,
            cut: false,
            depth: 0,
            redact_next: false,
        };
        let mut de = serde_json::Deserializer::from_str(&text);
        let err = match (&mut walk).deserialize(&mut de) {
            Ok(value) => {
                return Kept {
                    value,
                    cut: walk.cut,
                    repairs,
                };
            }
            Err(e) => e,
        };
        cuts.truncate(before);
        match repair::refit(&text, &err, &mut repairs) {
            Some(fixed) => text = Cow::Owned(fixed),
            None => break,
        }
    }
    Kept {
        value: Value::Null,
        cut: true,
        repairs,
    }
}

struct Walk<'c> {
    limits: Limits,
    /// Bytes of the budget left.
    left: usize,
    /// JSON pointer of the value being read.
    path: String,
    cuts: &'c mut Vec<Cut>,
    cut: bool,
    depth: usize,
    /// The value being read stands under a sensitive key: a string is redacted whole.
    redact_next: bool,
}

impl Walk<'_> {
    fn spend(&mut self, bytes: usize) {
        self.left = self.left.saturating_sub(bytes);
    }

    fn string(&mut self, s: &str) -> Value {
        if std::mem::take(&mut self.redact_next) {
            self.spend(REDACTED.len() + PER_VALUE);
            return Value::String(REDACTED.into());
        }
        let before = self.cuts.len();
        let kept = scrub_slice(s, self.limits.max_string, &self.path, self.cuts);
        self.cut |= self.cuts.len() > before;
        if !self.limits.say_cuts {
            self.cuts.truncate(before);
        }
        self.spend(kept.len() + PER_VALUE);
        Value::String(kept)
    }

    /// A member or element past the budget, skipped; its bytes as sent.
    fn note_skipped(&mut self, skipped: usize, bytes: usize, kept: usize) {
        if skipped == 0 {
            return;
        }
        self.cut = true;
        if self.limits.say_cuts {
            self.cuts.push(Cut {
                path: crate::store::redact::truncate_bytes(&self.path, MAX_FIELD).to_string(),
                size: kept + bytes,
                kept,
            });
        }
    }

    fn push_index(&mut self, i: usize) -> usize {
        let len = self.path.len();
        let _ = write!(self.path, "/{i}");
        len
    }

    fn push_key(&mut self, k: &str) -> usize {
        let len = self.path.len();
        self.path.push('/');
        if k.contains(['~', '/']) {
            self.path.push_str(&k.replace('~', "~0").replace('/', "~1"));
        } else {
            self.path.push_str(k);
        }
        len
    }
}

impl<'de> DeserializeSeed<'de> for &mut Walk<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for &mut Walk<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, b: bool) -> Result<Value, E> {
        self.redact_next = false;
        self.spend(PER_VALUE);
        Ok(Value::Bool(b))
    }

    fn visit_i64<E>(self, n: i64) -> Result<Value, E> {
        self.redact_next = false;
        self.spend(PER_VALUE);
        Ok(Value::from(n))
    }

    fn visit_u64<E>(self, n: u64) -> Result<Value, E> {
        self.redact_next = false;
        self.spend(PER_VALUE);
        Ok(Value::from(n))
    }

    fn visit_f64<E>(self, n: f64) -> Result<Value, E> {
        self.redact_next = false;
        self.spend(PER_VALUE);
        Ok(serde_json::Number::from_f64(n).map_or(Value::Null, Value::Number))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        self.redact_next = false;
        self.spend(PER_VALUE);
        Ok(Value::Null)
    }

    fn visit_str<E>(self, s: &str) -> Result<Value, E> {
        Ok(self.string(s))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        self.redact_next = false;
        self.spend(PER_VALUE);
        self.depth += 1;
        let start_left = self.left;
        let mut out = Vec::new();
        let mut ended = false;
        while self.left > 0 {
            let at = self.push_index(out.len());
            let next = seq.next_element_seed(&mut *self)?;
            self.path.truncate(at);
            match next {
                Some(v) => out.push(v),
                None => {
                    ended = true;
                    break;
                }
            }
        }
        self.depth -= 1;
        if !ended {
            let (mut skipped, mut bytes) = (0, 0);
            while let Some(raw) = seq.next_element::<&'de RawValue>()? {
                skipped += 1;
                bytes += raw.get().len() + 1;
            }
            self.note_skipped(skipped, bytes, start_left - self.left);
        }
        Ok(Value::Array(out))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        self.redact_next = false;
        self.spend(PER_VALUE);
        self.depth += 1;
        let top = self.depth == 1;
        let start_left = self.left;
        let mut out = Map::new();
        // Keys a secret or the bound changed, which another key must not be merged with.
        let mut cleaned: HashSet<String> = HashSet::new();
        let (mut skipped, mut bytes, mut small) = (0, 0, 0);
        loop {
            if self.left == 0 {
                // Past the budget: only short scalars of the field's own top level are kept.
                let Some(key) = map.next_key::<Key<'de>>()? else {
                    break;
                };
                let key = key.0;
                let raw = map.next_value::<&'de RawValue>()?;
                let text = raw.get();
                let scalar = !text.starts_with(['{', '[']);
                if top && scalar && small < SMALL_MEMBERS && text.len() <= SMALL_MEMBER + 2 {
                    small += 1;
                    let v = serde_json::from_str::<Value>(text).unwrap_or(Value::Null);
                    self.member(&mut out, &mut cleaned, &key, |w| match &v {
                        Value::String(s) => w.string(s),
                        other => other.clone(),
                    });
                } else {
                    skipped += 1;
                    bytes += key.len() + text.len() + 4;
                }
                continue;
            }
            let Some(Key(key)) = map.next_key::<Key<'de>>()? else {
                break;
            };
            let mut failed = None;
            self.member(&mut out, &mut cleaned, &key, |w| {
                map.next_value_seed(&mut *w).unwrap_or_else(|e| {
                    failed = Some(e);
                    Value::Null
                })
            });
            if let Some(e) = failed {
                return Err(e);
            }
        }
        self.depth -= 1;
        self.note_skipped(skipped, bytes, start_left - self.left);
        Ok(Value::Object(out))
    }
}

impl Walk<'_> {
    /// One member: its key redacted, bounded and kept apart from the others, its value read
    /// by `value` (a string under a sensitive key redacted whole).
    fn member(
        &mut self,
        out: &mut Map<String, Value>,
        cleaned: &mut HashSet<String>,
        key: &str,
        value: impl FnOnce(&mut Walk<'_>) -> Value,
    ) {
        let clean = scrub_slice(key, MAX_FIELD, "", &mut Vec::new());
        let changed = clean != key;
        let mut name = clean.clone();
        if changed || cleaned.contains(&name) {
            let mut n = 1;
            while out.contains_key(&name) {
                n += 1;
                name = format!("{clean} #{n}");
            }
            cleaned.insert(name.clone());
        }
        self.spend(name.len() + PER_VALUE);
        let at = self.push_key(&name);
        self.redact_next = sensitive_key(&name);
        let v = value(self);
        self.redact_next = false;
        self.path.truncate(at);
        out.insert(name, v);
    }
}

/// An object's key, borrowed from the text when it has no escapes.
pub(crate) struct Key<'de>(pub Cow<'de, str>);

impl<'de> serde::Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a key")
            }
            fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(s)))
            }
            fn visit_str<E>(self, s: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(s.to_string())))
            }
            fn visit_string<E>(self, s: String) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(s)))
            }
        }
        d.deserialize_str(V)
    }
}

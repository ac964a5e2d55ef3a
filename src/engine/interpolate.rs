//! `${name}` in the values a sequence sets and the notes it writes: replaced by the variable's
//! current value when the action runs. A workflow's `set_state: {field: b, value: "${a}"}`
//! copies `a`, not the text `${a}`.
//!
//! One pass, no re-scan: a value that itself contains `${…}` is inserted as it is, so nothing a
//! tool returned can expand further. Names seed does not know (unset variables, or host
//! variables such as `${CLAUDE_PROJECT_DIR}`, which the pure engine never sees) stay as
//! written, as the `workflow-unknown-variable` lint tells the author.

use std::collections::BTreeMap;

use serde_json::Value;

use super::guard::var_path;

/// What a reference can name: the sequence's variables and flags.
pub struct Scope<'a> {
    pub vars: &'a BTreeMap<String, Value>,
    pub flags: &'a BTreeMap<String, bool>,
}

/// The most text one action's interpolation may produce. An `append_state` of `${log}` onto
/// `log` doubles it each time round a loop; past this, references stay as written.
pub const MAX_INTERPOLATED_BYTES: usize = 64 * 1024;

/// `value` with every `${name}` in its strings (nested ones included) replaced.
pub fn value(v: &Value, snap: &Scope) -> Value {
    let mut budget = MAX_INTERPOLATED_BYTES;
    walk(v, snap, &mut budget)
}

/// `text` with every `${name}` replaced by the variable's text.
pub fn text(t: &str, snap: &Scope) -> String {
    let mut budget = MAX_INTERPOLATED_BYTES;
    match string(t, snap, &mut budget) {
        Value::String(s) => s,
        other => render(&other),
    }
}

fn walk(v: &Value, snap: &Scope, budget: &mut usize) -> Value {
    match v {
        Value::String(s) => string(s, snap, budget),
        Value::Array(items) => Value::Array(items.iter().map(|i| walk(i, snap, budget)).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, i)| (k.clone(), walk(i, snap, budget)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// A string that is exactly one `${name}` becomes the variable's value (a list stays a list);
/// otherwise each reference becomes its text inside the string.
fn string(s: &str, snap: &Scope, budget: &mut usize) -> Value {
    if !s.contains("${") {
        return Value::String(s.to_string());
    }
    if let Some(name) = whole_reference(s)
        && let Some(found) = lookup(snap, name)
    {
        let size = render(&found).len();
        if size <= *budget {
            *budget -= size;
            return found;
        }
        return Value::String(s.to_string());
    }
    Value::String(replace(s, snap, budget, &|reference| reference.to_string()))
}

/// `text` for showing a call: references to variables that hold a value become its text;
/// unset (or `null`) ones stay as written, naming what the call will need.
pub fn shown(t: &str, snap: &Scope) -> String {
    let mut budget = MAX_INTERPOLATED_BYTES;
    replace_with(
        t,
        snap,
        &mut budget,
        &|reference| reference.to_string(),
        true,
    )
}

/// A glob written with references (seed 003's `url: "${source_url}/llms.txt"`) as it stands
/// now: each set variable's text, and `*` for one that is unset (or `null`) so far, which any
/// value matches. A `*` or `?` in a variable's text matches as a wildcard (globs have no
/// escapes), so the result is never narrower than the value itself.
pub fn glob(template: &str, snap: &Scope) -> String {
    let mut budget = MAX_INTERPOLATED_BYTES;
    let mut out = replace_with(template, snap, &mut budget, &|_| "*".to_string(), true);
    while out.contains("**") {
        out = out.replace("**", "*");
    }
    out
}

/// `s` with each `${name}` replaced by its text; `missing` gives what an unknown reference (or
/// one past the budget) becomes.
fn replace(s: &str, snap: &Scope, budget: &mut usize, missing: &dyn Fn(&str) -> String) -> String {
    replace_with(s, snap, budget, missing, false)
}

fn replace_with(
    s: &str,
    snap: &Scope,
    budget: &mut usize,
    missing: &dyn Fn(&str) -> String,
    null_is_missing: bool,
) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find("${") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 2..];
        let Some(end) = after.find('}') else {
            out.push_str(&rest[i..]);
            return out;
        };
        let name = &after[..end];
        let reference = &rest[i..i + 2 + end + 1];
        let found = lookup(snap, name).filter(|v| !(null_is_missing && v.is_null()));
        match found.map(|v| render(&v)) {
            Some(t) if t.len() <= *budget => {
                *budget -= t.len();
                out.push_str(&t);
            }
            _ => out.push_str(&missing(reference)),
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    out
}

fn whole_reference(s: &str) -> Option<&str> {
    let name = s.strip_prefix("${")?.strip_suffix('}')?;
    (!name.contains(['{', '}'])).then_some(name)
}

/// A variable, a path into one (`source.url`, `items.0`), or a flag (`flags.done`).
fn lookup(snap: &Scope, name: &str) -> Option<Value> {
    let name = name.trim();
    if let Some(v) = var_path(snap.vars, name) {
        return Some(v.clone());
    }
    let flag = name.strip_prefix("flags.")?;
    snap.flags.get(flag).map(|b| Value::Bool(*b))
}

/// A value as text: strings as they are, anything else as compact JSON.
fn render(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    struct Held {
        vars: BTreeMap<String, Value>,
        flags: BTreeMap<String, bool>,
    }

    impl Held {
        fn scope(&self) -> Scope<'_> {
            Scope {
                vars: &self.vars,
                flags: &self.flags,
            }
        }
    }

    fn held(vars: Value) -> Held {
        let Value::Object(m) = vars else {
            panic!("an object")
        };
        Held {
            vars: m.into_iter().collect(),
            flags: BTreeMap::from([("ready".to_string(), true)]),
        }
    }

    #[test]
    fn references_become_values_or_text() {
        let h =
            held(json!({ "a": [1, 2], "src": { "url": "https://x.dev", "n": 3 }, "t": "${a}" }));
        assert_eq!(value(&json!("${a}"), &h.scope()), json!([1, 2]));
        assert_eq!(
            value(&json!("${src.url}/llms.txt"), &h.scope()),
            json!("https://x.dev/llms.txt")
        );
        assert_eq!(
            value(&json!("n=${src.n} a=${a}"), &h.scope()),
            json!("n=3 a=[1,2]")
        );
        assert_eq!(
            value(&json!({ "k": ["${a.1}"] }), &h.scope()),
            json!({ "k": [2] })
        );
        assert_eq!(value(&json!("${flags.ready}"), &h.scope()), json!(true));
        // Inserted text is not scanned again.
        assert_eq!(value(&json!("<${t}>"), &h.scope()), json!("<${a}>"));
        assert_eq!(text("done: ${src.url}", &h.scope()), "done: https://x.dev");
    }

    #[test]
    fn unknown_and_malformed_references_stay_as_written() {
        let h = held(json!({ "a": 1 }));
        for t in [
            "${CLAUDE_PROJECT_DIR}/x",
            "${nope}",
            "${a",
            "${}",
            "$a",
            "${a.b.c}",
            "${${a}}",
        ] {
            assert_eq!(value(&json!(t), &h.scope()), json!(t));
        }
    }

    #[test]
    fn a_glob_takes_what_is_set_and_matches_anything_for_what_is_not() {
        let h = held(json!({ "url": "https://docs.example.com", "id": null, "n": 3 }));
        assert_eq!(
            glob("${url}/llms.txt", &h.scope()),
            "https://docs.example.com/llms.txt"
        );
        assert_eq!(glob("data/${id}/${nope}/p.md", &h.scope()), "data/*/*/p.md");
        assert_eq!(glob("${id}${nope}x", &h.scope()), "*x");
        assert_eq!(glob("v${n}", &h.scope()), "v3");
        assert_eq!(glob("${url", &h.scope()), "${url");
        assert_eq!(
            shown("WebFetch(url=\"${url}/${id}\")", &h.scope()),
            "WebFetch(url=\"https://docs.example.com/${id}\")"
        );
        let big = held(json!({ "big": "y".repeat(MAX_INTERPOLATED_BYTES + 1) }));
        assert_eq!(glob("<${big}>", &big.scope()), "<*>");
    }

    #[test]
    fn doubling_stops_at_the_budget() {
        let mut h = held(json!({ "log": "x" }));
        for _ in 0..40 {
            let next = value(&json!("${log}${log}"), &h.scope());
            h.vars.insert("log".into(), next);
        }
        let log = h.vars["log"].as_str().expect("text");
        assert!(log.len() <= 2 * MAX_INTERPOLATED_BYTES, "{}", log.len());

        // One step: the reference that would pass the budget stays as written.
        let h = held(json!({ "big": "y".repeat(MAX_INTERPOLATED_BYTES - 10) }));
        let out = value(&json!("${big}|${big}"), &h.scope());
        let out = out.as_str().expect("text");
        assert!(out.ends_with("|${big}"), "{}", &out[out.len() - 20..]);
    }
}

//! Top-level settings of a master sequence: enforcement, off-path and out-of-order policies,
//! fail mode, the deadlock breaker, stop gating, neutral tools and server aliases.

use serde_json::{Map, Value};

use super::{Ctx, as_object};
use crate::dialects::locate::LoadError;
use crate::engine::build::ChartBuilder;
use crate::engine::ir::{
    Deadlock, DeadlockFallback, Enforcement, FailMode, OffPathPolicy, Settings, StopGate,
};
use crate::engine::tool_name::server_name_problem;

pub(super) fn settings(
    cx: &Ctx,
    obj: &Map<String, Value>,
    b: &mut ChartBuilder,
) -> Result<(), LoadError> {
    modes(cx, obj, &mut b.chart_mut().settings)?;
    if let Some(v) = obj.get("deadlock") {
        deadlock(cx, v, &mut b.chart_mut().settings.deadlock)?;
    }
    if let Some(v) = obj.get("stop") {
        stop(cx, v, &mut b.chart_mut().settings.stop)?;
    }
    if let Some(v) = obj.get("neutral_tools") {
        neutral_tools(cx, v, b)?;
    }
    if let Some(v) = obj.get("aliases") {
        aliases(cx, v, b)?;
    }
    Ok(())
}

/// `enforcement`, `off_path` and `fail`.
fn modes(cx: &Ctx, obj: &Map<String, Value>, s: &mut Settings) -> Result<(), LoadError> {
    if let Some(v) = obj.get("enforcement") {
        s.enforcement = match v.as_str() {
            Some("enforce") => Enforcement::Enforce,
            Some("advise") => Enforcement::Advise,
            Some("observe") => Enforcement::Observe,
            _ => {
                return Err(cx.err(
                    &["enforcement"],
                    "`enforcement` must be \"enforce\", \"advise\" or \"observe\"",
                ));
            }
        };
    }
    if let Some(v) = obj.get("off_path") {
        s.off_path = off_path(cx, v, "off_path")?;
    }
    // Seed 000: "the LLM literally cannot get lost" — a step of the railroad taken out of
    // order is refused, whatever `off_path` lets other calls do.
    s.out_of_order = Some(OffPathPolicy::Deny);
    if let Some(v) = obj.get("out_of_order") {
        s.out_of_order = Some(off_path(cx, v, "out_of_order")?);
    }
    if let Some(v) = obj.get("fail") {
        s.fail = match v.as_str() {
            Some("open") => FailMode::Open,
            Some("closed") => FailMode::Closed,
            _ => return Err(cx.err(&["fail"], "`fail` must be \"open\" or \"closed\"")),
        };
    }
    Ok(())
}

fn off_path(cx: &Ctx, v: &Value, key: &str) -> Result<OffPathPolicy, LoadError> {
    match v.as_str() {
        Some("observe") => Ok(OffPathPolicy::Observe),
        Some("warn") => Ok(OffPathPolicy::Warn),
        Some("deny") => Ok(OffPathPolicy::Deny),
        _ => Err(cx.err(
            &[key],
            format!("`{key}` must be \"observe\", \"warn\" or \"deny\""),
        )),
    }
}

/// `deadlock`: how many denials of one call before seed escalates, and to what.
fn deadlock(cx: &Ctx, v: &Value, dl: &mut Deadlock) -> Result<(), LoadError> {
    let d = as_object(cx, v, "deadlock")?;
    known_keys(cx, "deadlock", d, &["limit", "fallback"])?;
    if let Some(l) = d.get("limit") {
        // 0 would never escalate: the breaker exists so a denied agent is not stuck forever.
        dl.limit = l
            .as_u64()
            .filter(|n| (1..=1000).contains(n))
            .ok_or_else(|| {
                cx.err(
                    &["deadlock", "limit"],
                    "`deadlock.limit` must be a whole number from 1 to 1000: the denials of one call before seed escalates",
                )
            })? as u32;
    }
    if let Some(f) = d.get("fallback") {
        dl.fallback = match f.as_str() {
            Some("deny") => DeadlockFallback::Deny,
            Some("ask") => DeadlockFallback::Ask,
            Some("advise") => DeadlockFallback::Advise,
            _ => {
                return Err(cx.err(
                    &["deadlock", "fallback"],
                    "`deadlock.fallback` must be \"deny\", \"ask\" or \"advise\"",
                ));
            }
        };
    }
    Ok(())
}

/// `stop`: whether Stop hooks are blocked until a final state, and how many times at most.
fn stop(cx: &Ctx, v: &Value, stop: &mut StopGate) -> Result<(), LoadError> {
    let d = as_object(cx, v, "stop")?;
    known_keys(cx, "stop", d, &["block_until_final", "max_blocks"])?;
    stop.max_blocks = 2;
    if let Some(b) = d.get("block_until_final") {
        stop.block_until_final = b.as_bool().ok_or_else(|| {
            cx.err(
                &["stop", "block_until_final"],
                "`stop.block_until_final` must be true or false",
            )
        })?;
    }
    if let Some(n) = d.get("max_blocks") {
        stop.max_blocks = n
            .as_u64()
            .filter(|n| *n <= 100)
            .ok_or_else(|| {
                cx.err(
                    &["stop", "max_blocks"],
                    "`stop.max_blocks` must be a whole number from 0 to 100: the Stop hooks seed blocks before it lets the agent stop",
                )
            })? as u32;
    }
    Ok(())
}

fn neutral_tools(cx: &Ctx, v: &Value, b: &mut ChartBuilder) -> Result<(), LoadError> {
    let list = v.as_array().ok_or_else(|| {
        cx.err(
            &["neutral_tools"],
            "`neutral_tools` must be an array of tool patterns",
        )
    })?;
    for item in list {
        let p = item.as_str().ok_or_else(|| {
            cx.err(
                &["neutral_tools"],
                "`neutral_tools` entries must be strings",
            )
        })?;
        let pat = super::tool_pattern(cx, &["neutral_tools"], p)?;
        b.chart_mut().neutral.push(pat);
    }
    Ok(())
}

/// `aliases`: names an MCP server goes by, each a real server name.
fn aliases(cx: &Ctx, v: &Value, b: &mut ChartBuilder) -> Result<(), LoadError> {
    for (alias, actual) in as_object(cx, v, "aliases")? {
        let actual = actual
            .as_str()
            .ok_or_else(|| cx.err(&["aliases", alias], "alias values must be MCP server names"))?;
        for (name, what) in [(alias.as_str(), "alias"), (actual, "server")] {
            if let Some(problem) = server_name_problem(name) {
                return Err(cx.err(
                    &["aliases", alias],
                    format!("`aliases`: {what} `{name}`: {problem}"),
                ));
            }
        }
        b.chart_mut()
            .aliases
            .insert(alias.clone(), actual.to_string());
    }
    Ok(())
}

/// A nested setting's keys: a typo (`falback`) is an error, not a default silently kept.
fn known_keys(
    cx: &Ctx,
    section: &str,
    o: &Map<String, Value>,
    known: &[&str],
) -> Result<(), LoadError> {
    match o.keys().find(|k| !known.contains(&k.as_str())) {
        Some(k) => Err(cx.err(
            &[section, k],
            format!(
                "unknown key `{k}` in `{section}`: expected {}",
                known.join(" or ")
            ),
        )),
        None => Ok(()),
    }
}

//! The content tools: `who_am_i`, `what_do_i_do` and `how_do_i` serve the state directory's
//! `.seed` files, else text generated from the sequence, for the session as it will be once
//! their own call completes (see `in_flight`). Before any session is recorded (nothing names
//! one, or only the calling session, and the state directory is missing or empty) and without
//! a readable file they speak from the active sequence at its start, and without any sequence
//! they say so. Malformed arguments, a named session the state directory does not hold (or
//! that no state directory can hold), a state directory that is a file and a recorded session
//! that cannot be read are errors, in `status`'s words: never replaced by defaults.

use serde_json::{Map, Value, json};

use super::tools::{self, McpContext, ToolError, ToolOutput, str_arg};
use super::{content, howto, in_flight};
use crate::config::{self, Flags};
use crate::dialects;
use crate::dialects::sequence_search_dirs;
use crate::engine::{Machine, Snapshot};
use crate::session::choice::{self as session_choice, Pick};
use crate::session::fold::fold;
use crate::session::view as status;
use crate::store::sessions;

/// What the generated text is about.
enum Basis {
    /// The calling session's sequence, where it stands once the tool's own call completes.
    Session(Machine, Snapshot),
    /// The active sequence (the `sequence` argument, `--sequence`, the project's `.seed.toml`,
    /// `SEED_SEQUENCE`), at its start: there is no state directory or no session to read.
    Sequence(Machine, Snapshot),
    /// No sequence: why, in one line.
    Nothing(String),
}

impl Basis {
    fn name(&self) -> &'static str {
        match self {
            Basis::Session(..) => "session",
            Basis::Sequence(..) => "sequence",
            Basis::Nothing(_) => "none",
        }
    }

    fn machine(&self) -> Option<(&Machine, &Snapshot)> {
        match self {
            Basis::Session(m, s) | Basis::Sequence(m, s) => Some((m, s)),
            Basis::Nothing(_) => None,
        }
    }
}

/// The `session` and `sequence` arguments, checked even when a file answers.
struct Who {
    pick: Pick,
    sequence: Option<String>,
    /// The text comes from the session the tool speaks for: it is recorded, and it runs a
    /// sequence (or the `sequence` argument names one to read it through).
    from_session: bool,
}

/// The arguments, and the session they name: a session asked for (by argument, `--session` or
/// as the calling session) that the state directory does not hold is an error, as in `status`.
fn who(ctx: &McpContext, args: &Map<String, Value>) -> Result<Who, ToolError> {
    let asked = str_arg(args, "sequence")?;
    let pick = tools::pick(ctx, args)?;
    let sequence = asked.clone().or_else(|| ctx.sequence.clone());
    let from_session = !no_session_yet(ctx, &pick) && {
        let runs_a_sequence = recorded_session(ctx, &pick)?;
        runs_a_sequence || sequence.is_some()
    };
    let who = Who {
        pick,
        sequence,
        from_session,
    };
    if let Some(name) = asked {
        check_sequence(ctx, &who.pick, &name)?;
    }
    Ok(who)
}

/// No session to read, so the active sequence at its start answers: nothing names a session
/// (or only the calling one, which the hook has not recorded yet) and the state directory is
/// missing or holds no session. A session named by argument or `--session` always has to
/// exist, and a state directory that is not a directory is an error, as in `status`.
fn no_session_yet(ctx: &McpContext, pick: &Pick) -> bool {
    if matches!(pick, Pick::Named(_)) {
        return false;
    }
    match ctx.state_dir.as_deref() {
        None => true,
        Some(d) if !d.exists() => true,
        Some(d) if d.is_dir() => sessions::list(d).is_ok_and(|l| l.is_empty()),
        Some(_) => false,
    }
}

/// Whether the recorded session runs a sequence (one recorded while none was active runs
/// none: the active sequence answers, as before any session). A session that is not there is
/// the error `status` gives for it, in the same words.
fn recorded_session(ctx: &McpContext, pick: &Pick) -> Result<bool, ToolError> {
    let fail = |e: crate::session::Error| ToolError::Failed(e.to_string());
    match ctx.state_dir.as_deref() {
        Some(dir) if dir.is_dir() => session_choice::choose(dir, pick)
            .map(|info| !info.sequences.is_empty())
            .map_err(fail),
        // No state directory, a missing one or a file: `status` says which.
        state => status::load_view(&status::Source::Session(pick), None, state)
            .map(|_| true)
            .map_err(fail),
    }
}

/// A `sequence` argument must name a sequence: one seed can load, or one the session
/// recorded. Otherwise the model reads an error naming the sequences it could ask for (not
/// a page about no sequence, which reads like an answer).
fn check_sequence(ctx: &McpContext, pick: &Pick, name: &str) -> Result<(), ToolError> {
    let err = match dialects::resolve(name, &sequence_search_dirs()) {
        Ok(_) => return Ok(()),
        Err(e) => e.to_string(),
    };
    if ctx.state_dir.is_some()
        && status::load_view(
            &status::Source::Session(pick),
            Some(name),
            ctx.state_dir.as_deref(),
        )
        .is_ok()
    {
        return Ok(());
    }
    let mut known: Vec<String> = crate::report::sequences::list()
        .into_iter()
        .flatten()
        .map(|i| i.name)
        .collect();
    known.dedup();
    let known = known.join(", ");
    Err(ToolError::Failed(if err.contains("no such sequence") {
        format!("unknown sequence `{name}`; known sequences: {known}")
    } else {
        let err = err.replace(['\n', '\r'], " ");
        format!("sequence `{name}` cannot be loaded ({err}); known sequences: {known}")
    }))
}

/// The sequence the hook would step for this project when no session names one.
pub(super) fn configured(ctx: &McpContext) -> Result<Option<String>, String> {
    let env = |k: &str| std::env::var(k).ok();
    config::load(&ctx.project_dirs, &env, &Flags::default())
        .map(|c| c.sequences.into_iter().next())
        .map_err(|e| format!("The configuration cannot be read, so no sequence is active: {e}"))
}

/// `tool` is the content tool answering: its own call is projected as completed. A recorded
/// session that cannot be read is an error, never replaced by the sequence's defaults.
fn basis(ctx: &McpContext, who: &Who, tool: &str) -> Result<Basis, ToolError> {
    if who.from_session {
        let v = status::load_view(
            &status::Source::Session(&who.pick),
            who.sequence.as_deref(),
            ctx.state_dir.as_deref(),
        )
        .map_err(|e| ToolError::Failed(e.to_string()))?;
        let snap = in_flight::after_own_call(&v.machine, &v.snap, v.log.as_deref(), tool);
        return Ok(Basis::Session(v.machine, snap));
    }
    let name = match who.sequence.clone() {
        Some(n) => n,
        None => match configured(ctx) {
            Ok(Some(n)) => n,
            Ok(None) => return Ok(Basis::Nothing("No sequence is active".into())),
            Err(why) => return Ok(Basis::Nothing(why)),
        },
    };
    Ok(match dialects::resolve(&name, &sequence_search_dirs()) {
        Ok(l) => {
            let m = Machine::new(l.chart);
            let snap = fold(&m, &[]);
            Basis::Sequence(m, snap)
        }
        Err(e) => Basis::Nothing(format!(
            "The active sequence `{name}` cannot be loaded: {e}"
        )),
    })
}

/// A content file when there is one, else the text `generate` makes from the basis.
fn serve(
    ctx: &McpContext,
    args: &Map<String, Value>,
    tool: &str,
    generate: impl Fn(&Basis) -> String,
) -> Result<ToolOutput, ToolError> {
    let who = who(ctx, args)?;
    let file = format!("{tool}.seed");
    let (text, source) = match content::read_content(ctx.state_dir.as_deref(), &file) {
        Some(t) => (t, "file"),
        None => {
            let b = basis(ctx, &who, tool)?;
            (generate(&b), b.name())
        }
    };
    Ok(ToolOutput::ok(
        text.clone(),
        json!({ "text": text, "source": source }),
    ))
}

pub fn who_am_i(ctx: &McpContext, args: &Map<String, Value>) -> Result<ToolOutput, ToolError> {
    serve(ctx, args, "who_am_i", |b| match b {
        Basis::Session(m, _) | Basis::Sequence(m, _) => content::default_who_am_i(m),
        Basis::Nothing(why) => content::no_sequence(why),
    })
}

pub fn what_do_i_do(ctx: &McpContext, args: &Map<String, Value>) -> Result<ToolOutput, ToolError> {
    serve(ctx, args, "what_do_i_do", |b| match b {
        Basis::Session(m, s) | Basis::Sequence(m, s) => content::default_what_do_i_do(m, s),
        Basis::Nothing(why) => content::no_sequence(why),
    })
}

pub fn how_do_i(ctx: &McpContext, args: &Map<String, Value>) -> Result<ToolOutput, ToolError> {
    let component = str_arg(args, "component")?
        .filter(|c| !c.trim().is_empty())
        .ok_or_else(|| ToolError::InvalidParams("`component` is required".into()))?;
    let who = who(ctx, args)?;
    let sections = content::read_content(ctx.state_dir.as_deref(), "how_do_i.seed")
        .map(|t| content::sections(&t))
        .unwrap_or_default();
    let b = basis(ctx, &who, "how_do_i")?;
    let answer = howto::answer(b.machine(), &sections, &component);
    let mut structured = answer.structured;
    // Where the text came from: how_do_i.seed's sections, the sequence's steps, or both.
    // Every source that answered: how_do_i.seed's sections (`file`), the steps of the session's
    // or the active sequence, seed's own tools (`seed`); the basis when none did.
    let has = |key: &str| structured[key].as_array().is_some_and(|a| !a.is_empty());
    let sources: Vec<&str> = [
        ("sections", "file"),
        ("steps", b.name()),
        ("seed_tools", "seed"),
    ]
    .into_iter()
    .filter(|(key, _)| has(key))
    .map(|(_, name)| name)
    .collect();
    let source = match sources.is_empty() {
        true => b.name().to_string(),
        false => sources.join("+"),
    };
    if let Some(o) = structured.as_object_mut() {
        o.insert("source".into(), json!(source));
    }
    Ok(ToolOutput::ok(answer.text, structured))
}

//! The content tools: `who_am_i`, `what_do_i_do` and `how_do_i` serve the state directory's
//! `.seed` files, else text generated from the sequence. They always answer: without a state
//! directory, a session or a readable file they speak from the active sequence at its start,
//! and without any sequence they say so. Only malformed arguments are errors.

use serde_json::{Map, Value, json};

use super::tools::{McpContext, ToolError, ToolOutput, str_arg};
use super::{content, howto};
use crate::commands::status::fold;
use crate::commands::{sequence_search_dirs, view as status};
use crate::config::{self, Flags};
use crate::dialects;
use crate::engine::{Machine, Snapshot};

/// What the generated text is about.
enum Basis {
    /// The calling session's sequence, where it stands.
    Session(Machine, Snapshot),
    /// The active sequence (the `sequence` argument, `--sequence`, the project's `.seed.toml`,
    /// `SEED_SEQUENCE`), at its start: no session could be read.
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
    session: Option<String>,
    sequence: Option<String>,
}

fn who(ctx: &McpContext, args: &Map<String, Value>) -> Result<Who, ToolError> {
    Ok(Who {
        session: str_arg(args, "session")?.or_else(|| ctx.session.clone()),
        sequence: str_arg(args, "sequence")?.or_else(|| ctx.sequence.clone()),
    })
}

/// The sequence the hook would step for this project when no session names one.
pub(super) fn configured(ctx: &McpContext) -> Result<Option<String>, String> {
    let env = |k: &str| std::env::var(k).ok();
    config::load(&ctx.project_dirs, &env, &Flags::default())
        .map(|c| c.sequences.into_iter().next())
        .map_err(|e| format!("The configuration cannot be read, so no sequence is active: {e}"))
}

fn basis(ctx: &McpContext, who: &Who) -> Basis {
    if ctx.state_dir.is_some()
        && let Ok(v) = status::load_view(
            &status::Source::Session(who.session.as_deref()),
            who.sequence.as_deref(),
            ctx.state_dir.as_deref(),
        )
    {
        return Basis::Session(v.machine, v.snap);
    }
    let name = match who.sequence.clone() {
        Some(n) => n,
        None => match configured(ctx) {
            Ok(Some(n)) => n,
            Ok(None) => return Basis::Nothing("No sequence is active".into()),
            Err(why) => return Basis::Nothing(why),
        },
    };
    match dialects::resolve(&name, &sequence_search_dirs()) {
        Ok(l) => {
            let m = Machine::new(l.chart);
            let snap = fold(&m, &[]);
            Basis::Sequence(m, snap)
        }
        Err(e) => Basis::Nothing(format!(
            "The active sequence `{name}` cannot be loaded: {e}"
        )),
    }
}

/// A content file when there is one, else the text `generate` makes from the basis.
fn serve(
    ctx: &McpContext,
    args: &Map<String, Value>,
    file: &str,
    generate: impl Fn(&Basis) -> String,
) -> Result<ToolOutput, ToolError> {
    let who = who(ctx, args)?;
    let (text, source) = match content::read_content(ctx.state_dir.as_deref(), file) {
        Some(t) => (t, "file"),
        None => {
            let b = basis(ctx, &who);
            (generate(&b), b.name())
        }
    };
    Ok(ToolOutput::ok(
        text.clone(),
        json!({ "text": text, "source": source }),
    ))
}

pub fn who_am_i(ctx: &McpContext, args: &Map<String, Value>) -> Result<ToolOutput, ToolError> {
    serve(ctx, args, "who_am_i.seed", |b| match b {
        Basis::Session(m, _) | Basis::Sequence(m, _) => content::default_who_am_i(m),
        Basis::Nothing(why) => content::no_sequence(why),
    })
}

pub fn what_do_i_do(ctx: &McpContext, args: &Map<String, Value>) -> Result<ToolOutput, ToolError> {
    serve(ctx, args, "what_do_i_do.seed", |b| match b {
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
    let b = basis(ctx, &who);
    let answer = howto::answer(b.machine().map(|(m, _)| m), &sections, &component);
    let mut structured = answer.structured;
    if let Some(o) = structured.as_object_mut() {
        o.insert("source".into(), json!(b.name()));
    }
    Ok(ToolOutput::ok(answer.text, structured))
}

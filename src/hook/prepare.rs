//! Prepare: what a step needs, read before the session's lock is taken — the payload
//! (bounded, parsed, scrubbed), the configuration, the charts and the facts the readers
//! sample. `Known` learns each as it comes, so a failure at any point answers per `fail`.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde_json::Value;

use super::failure::{Known, SALVAGE_MAX};
use super::payload::{self, Scrubbed};
use super::{
    HookError, Invocation, Loaded, MAX_INPUT_STRING, fail_mode, load_machines, machines,
    read_stdin, start_dirs, tell,
};
use crate::config::{self, Config, Flags};
use crate::engine::{EventKind, Facts};
use crate::protocol::HookInput;
use crate::protocol::input::{self, Normalized};
use crate::store::redact::{self, Cut};
use crate::store::{paths, readers};

/// Everything read before the lock.
pub(super) struct Prepared {
    /// The prepared state directory.
    pub state: PathBuf,
    /// The scrubbed payload.
    pub input: HookInput,
    /// What scrubbing cut (the payload's, then the facts').
    pub cuts: Vec<Cut>,
    pub cfg: Config,
    pub loaded: Vec<Loaded>,
    /// The engine's event (`None`: an event seed only records).
    pub normalized: Option<Normalized>,
    pub facts: Facts,
    /// Readers whose walk ran out of budget, for the record and stderr.
    pub reader_notes: Vec<String>,
}

impl Prepared {
    /// The sequences' names, in the configured order.
    pub fn names(&self) -> Vec<&str> {
        self.loaded.iter().map(|l| l.name.as_str()).collect()
    }
}

pub(super) fn prepare(inv: &mut Invocation<'_>, known: &mut Known) -> Result<Prepared, HookError> {
    let (state, scrubbed, payload_cwd) = read_payload(inv, known)?;
    let start_dirs = start_dirs(inv, payload_cwd.as_deref());
    let cfg = configure(inv, known, &start_dirs)?;
    let project_dir = cfg
        .project_root
        .clone()
        .or_else(|| start_dirs.first().cloned());
    let Scrubbed { input, mut cuts } = scrubbed;
    let loaded = charts(
        inv,
        known,
        &cfg,
        &state,
        &input.event,
        project_dir.as_deref(),
    )?;
    let normalized = normalize(&input, &loaded)?;
    let vars = readers::ReaderVars::new(inv.env, project_dir.as_deref(), Some(&state));
    let (facts, reader_notes) = sample(&loaded, &vars, &mut cuts);
    Ok(Prepared {
        state,
        input,
        cuts,
        cfg,
        loaded,
        normalized,
        facts,
        reader_notes,
    })
}

/// The state directory (first, so even a payload too large to read is recorded) and the
/// payload, scrubbed, with its real `cwd` (to find the project's configuration; everything
/// else is used scrubbed).
fn read_payload(
    inv: &mut Invocation<'_>,
    known: &mut Known,
) -> Result<(PathBuf, Scrubbed, Option<String>), HookError> {
    let env_os = |k: &str| (inv.env)(k).map(OsString::from);
    let state = paths::state_dir_with(&env_os).and_then(|s| paths::prepare_state(&s));
    known.state = state.as_ref().ok().cloned();
    tell(inv, known);
    let bytes = match read_stdin(&mut *inv.stdin) {
        Ok(b) => b,
        Err(e) => {
            // Nothing of the payload is known; the configuration still says how to fail.
            known.fail = configured_fail(inv, None);
            return Err(e);
        }
    };
    let spare = (bytes.len() <= SALVAGE_MAX).then(|| bytes.clone());
    let hook_input = match HookInput::parse(bytes, inv.event.as_deref()) {
        Ok(h) => h,
        Err(e) => {
            // Learn what the payload still says, for the record and the fail-closed answer.
            if let Some(b) = spare {
                known.learn(b);
            }
            known.fail = configured_fail(inv, known.cwd.as_deref());
            return Err(e.into());
        }
    };
    drop(spare);
    let payload_cwd = hook_input.raw_cwd.clone();
    let scrubbed = payload::scrub(hook_input);
    known.event = Some(scrubbed.input.event.clone());
    known.session = Some(scrubbed.input.session_id.clone());
    known.agent = scrubbed.input.agent_id.clone();
    tell(inv, known);
    Ok((state?, scrubbed, payload_cwd))
}

/// The fail mode the configuration asks for (even a broken file's, when its `fail` line is
/// readable), for failures before the hook got that far.
pub(super) fn configured_fail(
    inv: &Invocation<'_>,
    payload_cwd: Option<&str>,
) -> crate::engine::ir::FailMode {
    let flags = Flags {
        fail: inv.fail.clone(),
        ..Flags::default()
    };
    let configured = match config::load(&start_dirs(inv, payload_cwd), inv.env, &flags) {
        Ok(c) => c.fail,
        Err(e) => e.fail,
    };
    fail_mode(inv, configured, &[])
}

/// The configuration in force; the watchdog learns its budget.
fn configure(
    inv: &Invocation<'_>,
    known: &mut Known,
    start_dirs: &[PathBuf],
) -> Result<Config, HookError> {
    let flags = Flags {
        sequence: inv.sequence.clone(),
        enforcement: inv.enforcement.clone(),
        fail: inv.fail.clone(),
    };
    let cfg = config::load(start_dirs, inv.env, &flags)
        .inspect_err(|e| known.fail = fail_mode(inv, e.fail, &[]))?;
    known.fail = fail_mode(inv, cfg.fail, &[]);
    known.lock_wait = Some(cfg.lock_wait);
    known.warning = cfg.warning.clone();
    if let Some(d) = &inv.deadline {
        d.set_budget(cfg.hook_budget);
    }
    tell(inv, known);
    Ok(cfg)
}

/// The sequences' machines, told which MCP servers the project has; their own `fail`
/// settings now count.
fn charts(
    inv: &Invocation<'_>,
    known: &mut Known,
    cfg: &Config,
    state: &Path,
    event: &str,
    project_dir: Option<&Path>,
) -> Result<Vec<Loaded>, HookError> {
    paths::ensure_dir_in(state, &paths::chart_cache_dir(state))?;
    let mut loaded = load_machines(cfg, project_dir, state)?;
    machines::host(&mut loaded, event, project_dir, inv.env);
    known.fail = fail_mode(inv, cfg.fail, &loaded);
    tell(inv, known);
    Ok(loaded)
}

/// The engine's event. A tool's result is stepped (and logged in the event) only for a
/// chart that keeps one; otherwise the record's copy, bounded by `response_limit`, is the
/// only one. A failed call's error is kept whatever the chart reads: recovery shows it.
fn normalize(h: &HookInput, loaded: &[Loaded]) -> Result<Option<Normalized>, HookError> {
    let prompt = h.prompt.as_deref().unwrap_or("");
    let mut normalized = input::normalize(h, &h.tool_input, prompt)?;
    let reads_responses = loaded.iter().any(|l| l.machine.chart.reads_responses());
    if let Some(n) = normalized
        .as_mut()
        .filter(|n| !reads_responses && n.event.kind != EventKind::ErrorTool)
    {
        n.event.response = Value::Null;
    }
    Ok(normalized)
}

/// The readers' facts, scrubbed like the payload (they are stepped and logged). A reader
/// whose walk ran out of budget is unknown; the notes say which.
fn sample(
    loaded: &[Loaded],
    vars: &readers::ReaderVars,
    cuts: &mut Vec<Cut>,
) -> (Facts, Vec<String>) {
    // Sampled as every face samples them (`session::now`): the dashboard and `status` step
    // the same facts between hook events.
    let (mut facts, notes) = crate::session::now::sample(
        loaded.iter().map(|l| &l.machine.chart),
        vars,
        SystemTime::now(),
    );
    for (name, value) in facts.iter_mut() {
        redact::scrub_value(value, MAX_INPUT_STRING, &format!("facts/{name}"), cuts);
    }
    (facts, notes)
}
